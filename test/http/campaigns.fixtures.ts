import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import type { AuditEvent } from '../../src/contract/audit.js';
import type { Campaign, CampaignPage, CampaignSummary } from '../../src/contract/campaigns.js';
import type { Problem } from '../../src/contract/problem.js';
import { OPERATOR } from '../../src/services/audit.js';
import { createApiKey, createBrandKey } from '../../src/services/keys.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { TestBackend, TestDatabase } from '../support/databases.js';
import { addUser, type TestUser } from '../support/users.js';

export const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

/** What the campaign routes answer: the contract's shapes (src/contract/). */
export type { AuditEvent, Campaign, CampaignPage, CampaignSummary, Problem };

export interface Fixture extends TestApp {
  database: TestDatabase;
  /** The workspace most tests work in, with a user of each role and a workspace API key. */
  workspaceId: string;
  owner: TestUser;
  admin: TestUser;
  member: TestUser;
  apiKey: string;
  apiKeyId: string;
  /** A brand read key of the same workspace: it reaches no campaign route. */
  brandKey: string;
  /** A second workspace with its own owner and API key. */
  otherWorkspaceId: string;
  otherOwner: TestUser;
  otherApiKey: string;
}

/**
 * Starts the app on a fresh database of `backend` for the enclosing suite; returns a getter. Usage stamps are
 * not flushed in the background, so the tables change only when a request changes them.
 */
export function useFixture(backend: TestBackend): () => Fixture {
  let fixture: Fixture | undefined;
  beforeAll(async () => {
    const database = await backend.create();
    const testApp = await startTestApp(database, { usageFlushMs: DAY_MS });
    const { deps } = testApp;
    const workspace = await createWorkspace(deps, OPERATOR, { name: 'Acme Coffee' });
    const other = await createWorkspace(deps, OPERATOR, { name: 'Other Brand' });
    const apiKey = await createApiKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'pipeline' });
    const otherApiKey = await createApiKey(deps, OPERATOR, { workspaceId: other.id, name: 'other' });
    const brandKey = await createBrandKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'reader' });
    fixture = {
      ...testApp,
      database,
      workspaceId: workspace.id,
      owner: await addUser(testApp, { workspaceId: workspace.id, role: 'owner' }),
      admin: await addUser(testApp, { workspaceId: workspace.id, role: 'admin' }),
      member: await addUser(testApp, { workspaceId: workspace.id, role: 'member' }),
      apiKey: apiKey.key,
      apiKeyId: apiKey.id,
      brandKey: brandKey.key,
      otherWorkspaceId: other.id,
      otherOwner: await addUser(testApp, { workspaceId: other.id, role: 'owner' }),
      otherApiKey: otherApiKey.key,
    };
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
  f: Fixture,
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

export const campaignsUrl = (workspaceId: string) => `/api/v1/workspaces/${workspaceId}/campaigns`;
export const campaignUrl = (workspaceId: string, id: string) => `${campaignsUrl(workspaceId)}/${id}`;

/** The campaign API of one workspace, as one caller sees it. */
export function campaignsApi(f: Fixture, credential: string, workspaceId = f.workspaceId) {
  return {
    create: (body: unknown, options: CallOptions = {}) =>
      call(f, credential, 'POST', campaignsUrl(workspaceId), { body, ...options }),
    get: (id: string) => call(f, credential, 'GET', campaignUrl(workspaceId, id)),
    list: (query = '') => call(f, credential, 'GET', `${campaignsUrl(workspaceId)}${query}`),
    patch: (id: string, body: unknown, ifMatch?: string, options: CallOptions = {}) =>
      call(f, credential, 'PATCH', campaignUrl(workspaceId, id), {
        body,
        ...options,
        headers: { ...(ifMatch === undefined ? {} : { 'if-match': ifMatch }), ...options.headers },
      }),
    schedule: (id: string, ifMatch?: string) =>
      call(f, credential, 'POST', `${campaignUrl(workspaceId, id)}/schedule`, {
        headers: ifMatch === undefined ? {} : { 'if-match': ifMatch },
      }),
  };
}

/** A new draft in `workspaceId`, created by the workspace's API key (or `credential`) over HTTP. */
export async function newDraft(
  f: Fixture,
  fields: Record<string, unknown> = {},
  credential = f.apiKey,
  workspaceId = f.workspaceId,
): Promise<Campaign> {
  const response = await campaignsApi(f, credential, workspaceId).create({
    name: 'Autumn newsletter',
    subject: 'New roasts are in',
    preheader: 'Three single origins',
    body_html: '<p>Hello</p>',
    body_text: 'Hello',
    ...fields,
  });
  if (response.statusCode !== 201) throw new Error(`could not create a draft: ${response.body}`);
  return response.json<Campaign>();
}

export function problemOf(response: LightMyRequestResponse): Problem {
  return response.json<Problem>();
}

/** `status code` of a response, for compact comparisons of many at once. */
export function outcome(response: LightMyRequestResponse): string {
  const isProblem = String(response.headers['content-type']).startsWith('application/problem+json');
  if (!isProblem || response.body === '') return String(response.statusCode);
  return `${response.statusCode} ${problemOf(response).code}`;
}

export function isoNow(f: Fixture): string {
  return new Date(f.clock.now()).toISOString();
}

/** The workspace's audit log as its owner reads it, newest first. */
export async function auditLog(f: Fixture, workspaceId = f.workspaceId): Promise<AuditEvent[]> {
  const token = workspaceId === f.workspaceId ? f.owner.token : f.otherOwner.token;
  const response = await call(f, token, 'GET', `/api/v1/workspaces/${workspaceId}/audit-log?limit=200`);
  if (response.statusCode !== 200) throw new Error(`could not read the audit log: ${response.body}`);
  return response.json<{ events: AuditEvent[] }>().events;
}
