import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect } from 'vitest';
import type { AuditEvent } from '../../src/contract/audit.js';
import type { Problem } from '../../src/contract/problem.js';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { isoAt } from '../../src/core/clock.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { createApiKey, createBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';
import { DAY_MS } from './clock.js';
import { snapshotTables, type TestBackend, type TestDatabase } from './databases.js';
import { addUser, type TestUser } from './users.js';

/** What the HTTP suites read back: the contract's shapes (src/contract/). */
export type { AuditEvent, Problem };

/** The app on a fresh database, with two workspaces and a caller of every kind (docs/management-api.md "Authentication"). */
export interface Fixture extends TestApp {
  database: TestDatabase;
  /** The workspace most tests work in: the demo brand, a user of each role, a brand read key and an API key. */
  workspaceId: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  brandKey: string;
  brandKeyId: string;
  apiKey: string;
  apiKeyId: string;
  /** A second workspace with its own owner and keys: what a caller of the first must not reach. */
  otherWorkspaceId: string;
  otherOwner: TestUser;
  otherBrandKey: string;
  otherApiKey: string;
}

export interface FixtureOptions<Extra> {
  /** The app's options; by default usage stamps are not flushed in the background, so the tables change only when a request changes them. */
  app?: TestAppOptions;
  /** What a suite adds to the fixture once it stands (a campaign, an account that signs in, …). */
  extend?: (fixture: Fixture) => Promise<Extra>;
}

/** Starts the app for the enclosing suite on a fresh database of `backend`; returns a getter. */
export function useFixture<Extra extends object = object>(
  backend: TestBackend,
  options: FixtureOptions<Extra> = {},
): () => Fixture & Extra {
  let fixture: (Fixture & Extra) | undefined;
  beforeAll(async () => {
    const database = await backend.create();
    const testApp = await startTestApp(database, { usageFlushMs: DAY_MS, ...options.app });
    const { deps } = testApp;
    const workspace = await createWorkspace(deps, OPERATOR, { name: 'Acme Coffee' });
    await replaceBrand(deps, OPERATOR, workspace.id, parseBrandDocument(DEMO_BRAND));
    const other = await createWorkspace(deps, OPERATOR, { name: 'Other Brand' });
    const brandKey = await createBrandKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'pipeline' });
    const otherBrandKey = await createBrandKey(deps, OPERATOR, { workspaceId: other.id, name: 'other' });
    const apiKey = await createApiKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'pipeline' });
    const otherApiKey = await createApiKey(deps, OPERATOR, { workspaceId: other.id, name: 'other' });
    const base: Fixture = {
      ...testApp,
      database,
      workspaceId: workspace.id,
      owner: await addUser(testApp, { workspaceId: workspace.id, role: 'owner' }),
      admin: await addUser(testApp, { workspaceId: workspace.id, role: 'admin' }),
      member: await addUser(testApp, { workspaceId: workspace.id, role: 'member' }),
      brandKey: brandKey.key,
      brandKeyId: brandKey.id,
      apiKey: apiKey.key,
      apiKeyId: apiKey.id,
      otherWorkspaceId: other.id,
      otherOwner: await addUser(testApp, { workspaceId: other.id, role: 'owner' }),
      otherBrandKey: otherBrandKey.key,
      otherApiKey: otherApiKey.key,
    };
    const extra = options.extend ? await options.extend(base) : ({} as Extra);
    fixture = { ...base, ...extra };
  });
  afterAll(async () => {
    await fixture?.close();
    await fixture?.database.drop();
  });
  return () => {
    if (!fixture) throw new Error('fixture not started');
    return fixture;
  };
}

export interface CallOptions {
  body?: unknown;
  /** Sent as it is, instead of `body` as JSON. */
  rawBody?: string;
  headers?: Record<string, string>;
}

/** One request with `credential` (a user token or a key) as its bearer token. */
export function call(
  f: TestApp,
  credential: string | undefined,
  method: HTTPMethods,
  url: string,
  options: CallOptions = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (credential !== undefined) headers.authorization = `Bearer ${credential}`;
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  return f.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

export function problemOf(response: LightMyRequestResponse): Problem {
  return response.json<Problem>();
}

/** `status code` of a response (the status alone when it is no problem), for compact comparisons of many at once. */
export function outcome(response: LightMyRequestResponse): string {
  const isProblem = String(response.headers['content-type']).startsWith('application/problem+json');
  if (!isProblem || response.body === '') return String(response.statusCode);
  return `${response.statusCode} ${problemOf(response).code}`;
}

/** Runs `requests`, and checks that every table is as it was before. */
export async function unchanged<T>(f: Fixture, requests: () => Promise<T>): Promise<T> {
  const before = await snapshotTables(f.database.config);
  const result = await requests();
  expect(await snapshotTables(f.database.config)).toEqual(before);
  return result;
}

/** Sends `request`, expects `expected` (`status code`), and checks that no table changed. */
export async function refused(
  f: Fixture,
  request: () => Promise<LightMyRequestResponse>,
  expected: string,
): Promise<LightMyRequestResponse> {
  const response = await unchanged(f, request);
  expect(outcome(response)).toBe(expected);
  return response;
}

/** A route as the security suites call it: its method, its URL, and a valid body if it takes one. */
export interface RouteCall {
  method: HTTPMethods;
  url: string;
  body?: unknown;
}

/** Calls each of `routes` in turn with `credential`; the answers in the same order. */
export async function callEach(
  f: Fixture,
  credential: string | undefined,
  routes: readonly RouteCall[],
): Promise<LightMyRequestResponse[]> {
  const responses: LightMyRequestResponse[] = [];
  for (const route of routes) {
    responses.push(await call(f, credential, route.method, route.url, { body: route.body }));
  }
  return responses;
}

/** The app clock's now, as the service writes timestamps. */
export function isoNow(f: TestApp): string {
  return isoAt(f.clock);
}

export const auditLogUrl = (workspaceId: string) => `/api/v1/workspaces/${workspaceId}/audit-log`;

/** The workspace's audit log as its owner reads it, newest first. */
export async function auditLog(f: Fixture, workspaceId = f.workspaceId): Promise<AuditEvent[]> {
  const token = workspaceId === f.workspaceId ? f.owner.token : f.otherOwner.token;
  const response = await call(f, token, 'GET', `${auditLogUrl(workspaceId)}?limit=200`);
  if (response.statusCode !== 200) throw new Error(`could not read the audit log: ${response.body}`);
  return response.json<{ events: AuditEvent[] }>().events;
}

/** A body that is not JSON gets 400 invalid_json and one not sent as JSON 415; neither changes a table. */
export async function expectNonJsonRefused(
  f: Fixture,
  credential: string,
  method: HTTPMethods,
  url: string,
): Promise<void> {
  await refused(f, () => call(f, credential, method, url, { rawBody: '{"name": ' }), '400 invalid_json');
  await refused(
    f,
    () =>
      call(f, credential, method, url, {
        rawBody: 'name=Acme',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
    '415 unsupported_media_type',
  );
}
