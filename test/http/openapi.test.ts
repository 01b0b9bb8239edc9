import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteBackend, type TestDatabase } from '../support/databases.js';

interface Operation {
  requestBody?: {
    content: Record<string, { schema: { properties?: Record<string, unknown>; required?: string[] } }>;
  };
  responses: Record<string, { content?: Record<string, { schema: unknown }> }>;
  parameters?: { name: string; in: string }[];
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
}

describe('GET /openapi.json', () => {
  let database: TestDatabase;
  let testApp: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    database = await sqliteBackend.create();
    testApp = await startTestApp(database);
    const response = await testApp.app.inject({ method: 'GET', url: '/openapi.json' });
    expect(response.statusCode).toBe(200);
    document = response.json<OpenApiDocument>();
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('describes every route of the API with its method', () => {
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'GET /healthz',
        'GET /readyz',
        'POST /functions/v1/brand-agent',
        'POST /auth/v1/token',
        'POST /auth/v1/session',
        'GET /auth/v1/session',
        'DELETE /auth/v1/session',
        'GET /api/v1/workspaces',
        'POST /api/v1/workspaces',
        'GET /api/v1/workspaces/{id}/brand',
        'PUT /api/v1/workspaces/{id}/brand',
        'GET /api/v1/workspaces/{id}/brand-keys',
        'POST /api/v1/workspaces/{id}/brand-keys',
        'DELETE /api/v1/workspaces/{id}/brand-keys/{key_id}',
        'GET /api/v1/workspaces/{id}/members',
        'POST /api/v1/workspaces/{id}/members',
        'DELETE /api/v1/workspaces/{id}/members/{user_id}',
        'GET /api/v1/workspaces/{id}/audit-log',
        'GET /api/v1/tokens',
        'POST /api/v1/tokens',
        'DELETE /api/v1/tokens/{token_id}',
        'GET /api/v1/workspaces/{id}/api-keys',
        'POST /api/v1/workspaces/{id}/api-keys',
        'DELETE /api/v1/workspaces/{id}/api-keys/{key_id}',
        'GET /api/v1/workspaces/{id}/campaigns',
        'POST /api/v1/workspaces/{id}/campaigns',
        'GET /api/v1/workspaces/{id}/campaigns/{campaign_id}',
        'PATCH /api/v1/workspaces/{id}/campaigns/{campaign_id}',
        'POST /api/v1/workspaces/{id}/campaigns/{campaign_id}/schedule',
      ].sort(),
    );
  });

  it('generates request schemas from the zod schemas that validate them', () => {
    const createKey = document.paths['/api/v1/workspaces/{id}/brand-keys']?.post;
    const body = createKey?.requestBody?.content['application/json']?.schema;
    expect(body?.required).toEqual(['name']);
    expect(createKey?.parameters?.map((parameter) => [parameter.name, parameter.in])).toEqual([
      ['id', 'path'],
    ]);

    const read =
      document.paths['/functions/v1/brand-agent']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(read?.properties ?? {}).sort()).toEqual(['action', 'workspace_id']);

    const patch = document.paths['/api/v1/workspaces/{id}/campaigns/{campaign_id}']?.patch;
    expect(patch?.parameters?.map((parameter) => [parameter.name, parameter.in])).toEqual(
      expect.arrayContaining([
        ['id', 'path'],
        ['campaign_id', 'path'],
        ['if-match', 'header'],
      ]),
    );
    const edit = patch?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(edit?.properties ?? {}).sort()).toEqual([
      'body_html',
      'body_text',
      'name',
      'preheader',
      'subject',
    ]);
    const list = document.paths['/api/v1/workspaces/{id}/campaigns']?.get;
    expect(
      list?.parameters
        ?.filter((p) => p.in === 'query')
        .map((p) => p.name)
        .sort(),
    ).toEqual(['cursor', 'limit', 'status']);

    const putBrand =
      document.paths['/api/v1/workspaces/{id}/brand']?.put?.requestBody?.content['application/json']?.schema;
    expect(JSON.stringify(putBrand)).toContain('knowledge');
  });

  it('documents the success and problem responses of each operation', () => {
    const read = document.paths['/functions/v1/brand-agent']?.post;
    expect(Object.keys(read?.responses ?? {})).toEqual(expect.arrayContaining(['200', '4XX']));
    expect(JSON.stringify(document.components.schemas)).toContain('resolution');
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const operation of Object.values(methods))
        expect(Object.keys(operation.responses)).toContain('4XX');
    }
  });
});
