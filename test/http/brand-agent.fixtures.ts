import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { createBrandKey } from '../../src/services/keys.js';
import { replaceBrand } from '../../src/services/brand.js';
import { DEMO_BRAND } from '../../src/services/demo-brand.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import type { Problem } from '../../src/contract/problem.js';
import { startTestApp, type TestApp } from '../support/app.js';
import type { TestBackend, TestDatabase } from '../support/databases.js';
import { OPERATOR } from '../../src/services/audit.js';
import { parseBrandDocument } from '../../src/core/brand-context.js';

export const PATH = '/functions/v1/brand-agent';

export interface Fixture extends TestApp {
  database: TestDatabase;
  /** Workspace with the demo brand, and an active key created in it. */
  workspaceId: string;
  key: string;
  keyId: string;
  /** A second workspace with its own key. */
  otherWorkspaceId: string;
  otherKey: string;
}

/** Starts the app on a fresh database of `backend` for the enclosing suite; returns a getter. */
export function useFixture(backend: TestBackend): () => Fixture {
  let fixture: Fixture | undefined;
  beforeAll(async () => {
    const database = await backend.create();
    const testApp = await startTestApp(database);
    const { deps } = testApp;
    const workspace = await createWorkspace(deps, OPERATOR, { name: 'Acme Coffee' });
    await replaceBrand(deps, OPERATOR, workspace.id, parseBrandDocument(DEMO_BRAND));
    const key = await createBrandKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'pipeline' });
    const other = await createWorkspace(deps, OPERATOR, { name: 'Other Brand' });
    const otherKey = await createBrandKey(deps, OPERATOR, { workspaceId: other.id, name: 'other' });
    fixture = {
      ...testApp,
      database,
      workspaceId: workspace.id,
      key: key.key,
      keyId: key.id,
      otherWorkspaceId: other.id,
      otherKey: otherKey.key,
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

export interface ReadOptions {
  key?: string | null;
  authorization?: string;
  body?: unknown;
  rawBody?: string;
  headers?: Record<string, string>;
  method?: InjectOptions['method'];
}

/** The read operation as an integrator calls it; every part can be overridden to break it. */
export function readContext(
  app: FastifyInstance,
  workspaceId: string,
  options: ReadOptions = {},
): Promise<LightMyRequestResponse> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  const authorization = options.authorization ?? (options.key ? `Bearer ${options.key}` : undefined);
  if (authorization !== undefined) headers.authorization = authorization;
  return app.inject({
    method: options.method ?? 'POST',
    url: PATH,
    headers,
    payload:
      options.rawBody ??
      JSON.stringify('body' in options ? options.body : { action: 'context', workspace_id: workspaceId }),
  });
}

export type { Problem };

export function problemOf(response: LightMyRequestResponse): Problem {
  return response.json<Problem>();
}
