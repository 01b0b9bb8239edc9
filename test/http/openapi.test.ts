import { fileURLToPath } from 'node:url';
import { loadConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { call, type CallOptions, outcome, useFixture } from '#test/support/http-fixture.js';
import { campaignsApi, newDraft } from '#test/support/fixtures/campaigns.js';
import { emailKeyWithSender, message, sendEmail } from '#test/support/fixtures/email.js';
import { schemaAt } from '#test/support/openapi-conformance.js';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/webhooks.js';

interface MediaType {
  schema: {
    $ref?: string;
    anyOf?: unknown[];
    type?: string;
    properties?: Record<string, unknown>;
    required?: string[];
    description?: string;
  };
}
interface Response {
  description: string;
  headers?: Record<string, { description?: string; schema: { type?: string; format?: string } }>;
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, Response>;
  parameters?: { name: string; in: string; required?: boolean }[];
}
interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  /** What the service POSTs to webhook endpoints: one entry per event type. */
  webhooks?: Record<string, Record<string, Operation>>;
  security?: Record<string, string[]>[];
  components: { schemas: Record<string, unknown>; securitySchemes: Record<string, unknown> };
}

const REDOCLY_CONFIG = fileURLToPath(new URL('../../redocly.yaml', import.meta.url));
const PROBLEM_REF = '#/components/schemas/Problem';
/** What the read operation answers, by format (docs/reading-brand-context.md "Formats and sections"). */
const READ_MEDIA_TYPES = ['application/json', 'text/markdown', 'application/design-tokens+json'];

async function openApiDocument(testApp: TestApp): Promise<OpenApiDocument> {
  const response = await testApp.app.inject({ method: 'GET', url: '/openapi.json' });
  expect(response.statusCode).toBe(200);
  return response.json<OpenApiDocument>();
}

function operationsOf(document: OpenApiDocument): [string, Operation][] {
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]): [string, Operation] => [
      `${method.toUpperCase()} ${path}`,
      operation,
    ]),
  );
}

describe('GET /openapi.json', () => {
  let database: TestDatabase;
  let testApp: TestApp;
  let document: OpenApiDocument;

  beforeAll(async () => {
    database = await sqliteBackend.create();
    testApp = await startTestApp(database);
    document = await openApiDocument(testApp);
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
        'POST /functions/v1/brand-check',
        'POST /auth/v1/token',
        'POST /auth/v1/session',
        'GET /auth/v1/session',
        'GET /auth/v1/session/status',
        'DELETE /auth/v1/session',
        'POST /auth/v1/invites/accept',
        'POST /auth/v1/password-reset',
        'POST /auth/v1/password-reset/confirm',
        'GET /api/v1/workspaces',
        'POST /api/v1/workspaces',
        'GET /api/v1/workspaces/{id}',
        'PATCH /api/v1/workspaces/{id}',
        'GET /api/v1/workspaces/{id}/brand',
        'PUT /api/v1/workspaces/{id}/brand',
        'GET /api/v1/workspaces/{id}/brand/draft',
        'PUT /api/v1/workspaces/{id}/brand/draft',
        'DELETE /api/v1/workspaces/{id}/brand/draft',
        'POST /api/v1/workspaces/{id}/brand/draft/publish',
        'GET /api/v1/workspaces/{id}/brand/versions',
        'GET /api/v1/workspaces/{id}/brand/versions/{version}',
        'GET /api/v1/workspaces/{id}/brand/versions/{version}/diff',
        'POST /api/v1/workspaces/{id}/brand/versions/{version}/restore',
        'GET /api/v1/workspaces/{id}/brand-keys',
        'POST /api/v1/workspaces/{id}/brand-keys',
        'DELETE /api/v1/workspaces/{id}/brand-keys/{key_id}',
        'GET /api/v1/workspaces/{id}/members',
        'POST /api/v1/workspaces/{id}/members',
        'DELETE /api/v1/workspaces/{id}/members/{user_id}',
        'POST /api/v1/workspaces/{id}/members/{user_id}/invite',
        'GET /api/v1/workspaces/{id}/members/{user_id}/credentials',
        'GET /api/v1/workspaces/{id}/audit-log',
        'GET /api/v1/tokens',
        'POST /api/v1/tokens',
        'DELETE /api/v1/tokens/{token_id}',
        'GET /api/v1/oauth/authorization',
        'POST /api/v1/oauth/authorization',
        'GET /api/v1/workspaces/{id}/oauth-grants',
        'DELETE /api/v1/workspaces/{id}/oauth-grants/{grant_id}',
        'GET /api/v1/workspaces/{id}/api-keys',
        'POST /api/v1/workspaces/{id}/api-keys',
        'DELETE /api/v1/workspaces/{id}/api-keys/{key_id}',
        'GET /api/v1/workspaces/{id}/email-keys',
        'GET /api/v1/workspaces/{id}/campaigns',
        'POST /api/v1/workspaces/{id}/campaigns',
        'GET /api/v1/workspaces/{id}/campaigns/{campaign_id}',
        'GET /api/v1/workspaces/{id}/campaigns/{campaign_id}/check',
        'PATCH /api/v1/workspaces/{id}/campaigns/{campaign_id}',
        'POST /api/v1/workspaces/{id}/campaigns/{campaign_id}/schedule',
        'GET /api/v1/workspaces/{id}/webhooks',
        'POST /api/v1/workspaces/{id}/webhooks',
        'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}',
        'PATCH /api/v1/workspaces/{id}/webhooks/{webhook_id}',
        'DELETE /api/v1/workspaces/{id}/webhooks/{webhook_id}',
        'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/secret',
        'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret',
        'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/test',
        'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries',
        'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}',
        'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry',
        'GET /api/v1/workspaces/{id}/email-senders',
        'GET /api/v1/workspaces/{id}/email-suppressions',
        'DELETE /api/v1/workspaces/{id}/email-suppressions/{email}',
        'GET /api/v1/workspaces/{id}/email-messages',
        'GET /api/v1/workspaces/{id}/email-messages/{message_id}',
        'GET /api/v1/workspaces/{id}/email-messages/{message_id}/content',
        'GET /api/v1/workspaces/{id}/email-messages/{message_id}/content.html',
        'POST /email/v1/messages',
        'GET /email/v1/messages',
        'GET /email/v1/messages/{message_id}',
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
    expect(Object.keys(read?.properties ?? {}).sort()).toEqual([
      'action',
      'format',
      'knowledge_kinds',
      'knowledge_tags',
      'sections',
      'version',
      'workspace_id',
    ]);

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

  it('documents the success and problem responses of each operation, status by status', () => {
    const read = document.paths['/functions/v1/brand-agent']?.post;
    expect(Object.keys(read?.responses ?? {}).sort()).toEqual(
      ['200', '304', '400', '401', '403', '404', '413', '415', '429', '500', '503'].sort(),
    );
    expect(JSON.stringify(document.components.schemas)).toContain('resolution');
    for (const [path, methods] of Object.entries(document.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const operation of Object.values(methods))
        expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '403', '500']));
    }
    const edit = document.paths['/api/v1/workspaces/{id}/campaigns/{campaign_id}']?.patch;
    expect(Object.keys(edit?.responses ?? {})).toEqual(expect.arrayContaining(['409', '412', '413', '415']));
    expect(Object.keys(document.paths['/readyz']?.get?.responses ?? {})).toContain('503');
    for (const path of ['/auth/v1/token', '/auth/v1/session']) {
      const signIn = document.paths[path]?.post?.responses;
      expect(signIn?.['429']?.description, path).toContain('rate_limited');
      expect(signIn?.['503']?.description, path).toContain('sign_in_busy');
    }
    // A write that finds the database's disk full saves nothing and says so.
    for (const [name, operation] of operationsOf(document).filter(
      ([name]) => name.includes(' /api/') && !name.startsWith('GET '),
    ))
      expect(operation.responses['507']?.description, name).toContain('storage_full');
  });

  it('documents the read operation answering each format as its own media type, with its headers', () => {
    const responses = document.paths['/functions/v1/brand-agent']?.post?.responses;
    const ok = responses?.['200'];
    expect(Object.keys(ok?.headers ?? {}).sort()).toEqual([
      'Brand-Key-Expires',
      'Brand-Version',
      'Cache-Control',
      'ETag',
      'RateLimit',
      'RateLimit-Policy',
    ]);
    expect(Object.keys(responses?.['304']?.headers ?? {}).sort()).toEqual([
      'Brand-Key-Expires',
      'Brand-Version',
      'ETag',
      'RateLimit',
      'RateLimit-Policy',
    ]);
    expect(responses?.['304']?.headers?.ETag?.description).toContain('If-None-Match');
    expect(Object.keys(ok?.content ?? {})).toEqual(READ_MEDIA_TYPES);
    expect(ok?.content?.['application/json']?.schema.anyOf).toEqual([
      { $ref: '#/components/schemas/BrandContext' },
      { $ref: '#/components/schemas/BrandContextSections' },
    ]);
    expect(ok?.content?.['text/markdown']?.schema).toMatchObject({ type: 'string' });
    expect(ok?.content?.['application/design-tokens+json']?.schema.$ref).toBe(
      '#/components/schemas/BrandDesignTokens',
    );
    expect(ok?.headers?.['Brand-Version']).toMatchObject({ schema: { type: 'integer' } });
    expect(ok?.headers?.['Brand-Key-Expires']).toMatchObject({
      description: expect.stringContaining('RFC 3339') as string,
      schema: { type: 'string', format: 'date-time' },
    });
  });

  it('gives every operation a unique camelCase operationId and a summary', () => {
    const operations = operationsOf(document);
    const ids = operations.map(([, operation]) => operation.operationId);
    for (const [name, operation] of operations) {
      expect(operation.operationId, name).toMatch(/^[a-z]+(?:[A-Z][a-z]+)+$|^[a-z]+$/);
      expect(operation.summary, name).toMatch(/\S/);
    }
    expect(new Set(ids).size).toBe(operations.length);
    const idOf = (path: string, method: string) => document.paths[path]?.[method]?.operationId;
    expect(idOf('/functions/v1/brand-agent', 'post')).toBe('readBrandContext');
    expect(idOf('/auth/v1/token', 'post')).toBe('signIn');
    expect(idOf('/api/v1/workspaces/{id}/brand-keys', 'get')).toBe('listBrandKeys');
    expect(idOf('/api/v1/workspaces/{id}/api-keys', 'get')).toBe('listApiKeys');
    expect(idOf('/api/v1/workspaces/{id}/campaigns', 'post')).toBe('createCampaignDraft');
  });

  it('types every 4xx and 5xx response as application/problem+json with the Problem schema, and no ranges', () => {
    for (const [name, operation] of operationsOf(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(status, `${name} ${status}`).toMatch(/^[1-5]\d\d$/);
        expect(response.description, `${name} ${status}`).not.toBe('Default Response');
        if (Number(status) >= 400) {
          expect(response.content, `${name} ${status}`).toEqual({
            'application/problem+json': { schema: { $ref: PROBLEM_REF } },
          });
        } else if (status === '204' || status === '304') {
          expect(response.content, `${name} ${status} has no body`).toBeUndefined();
        } else {
          // A captured email's HTML body is the one page the API answers (the console's mailbox frames it);
          // the read operation answers in the format asked.
          const types =
            name === 'POST /functions/v1/brand-agent'
              ? READ_MEDIA_TYPES
              : [name.endsWith('/content.html') ? 'text/html' : 'application/json'];
          expect(Object.keys(response.content ?? {}), `${name} ${status}`).toEqual(types);
        }
      }
    }
  });

  it('signs in and checks health without a bearer token; management routes also take the session cookie', () => {
    expect(document.security).toEqual([{ bearer: [] }]);
    for (const [path, method] of [
      ['/auth/v1/token', 'post'],
      ['/auth/v1/session', 'post'],
      ['/auth/v1/session', 'get'],
      ['/auth/v1/session/status', 'get'],
      ['/healthz', 'get'],
      ['/readyz', 'get'],
    ] as const)
      expect(document.paths[path]?.[method]?.security, `${method} ${path}`).toEqual([]);
    expect(document.paths['/functions/v1/brand-agent']?.post?.security).toBeUndefined();
    for (const [name, operation] of operationsOf(document).filter(([name]) => name.includes(' /api/')))
      expect(operation.security, name).toEqual([{ bearer: [] }, { sessionCookie: [] }]);
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['bearer', 'sessionCookie']);
  });

  it('describes every event type as a webhook: a POST of its event, with the Standard Webhooks headers', () => {
    const webhooks = document.webhooks ?? {};
    expect(Object.keys(webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    for (const [type, item] of Object.entries(webhooks)) {
      expect(Object.keys(item), type).toEqual(['post']);
      const post = item.post;
      expect(post?.summary, type).toMatch(/\S/);
      expect(post?.security, type).toEqual([]);
      expect(
        post?.parameters
          ?.filter((parameter) => parameter.in === 'header' && parameter.required === true)
          .map((parameter) => parameter.name),
      ).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'user-agent']);
      expect(post?.requestBody?.required, type).toBe(true);
      const body = post?.requestBody?.content['application/json']?.schema.$ref ?? '';
      const event = document.components.schemas[
        body.replace('#/components/schemas/', '')
      ] as MediaType['schema'];
      expect(event.required, type).toEqual(['id', 'type', 'timestamp', 'workspace_id', 'data']);
      expect(event.properties?.type, type).toEqual({ type: 'string', const: type });
      expect(Object.keys(post?.responses ?? {}), type).toEqual(['2XX']);
    }
    // Each key's data names its kind's own schema, as its listing does.
    expect(JSON.stringify(document.components.schemas.ApiKeyExpiringEvent)).toContain(
      '"$ref":"#/components/schemas/ApiKey"',
    );
  });

  it("passes Redocly's recommended ruleset without an error or a warning", async () => {
    const config = await loadConfig({ configPath: REDOCLY_CONFIG });
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config,
    });
    const found = problems.map(
      (problem) =>
        `${problem.severity} ${problem.ruleId}: ${problem.message} (${problem.location[0]?.pointer ?? ''})`,
    );
    expect(found).toEqual([]);
  });
});

describe('POST /functions/v1/brand-agent in GET /openapi.json: each answer as it is', () => {
  const fixture = useFixture(sqliteBackend);
  const READ_JSON = '/paths/~1functions~1v1~1brand-agent/post/responses/200/content/application~1json/schema';
  const READ_DTCG =
    '/paths/~1functions~1v1~1brand-agent/post/responses/200/content/application~1design-tokens+json/schema';
  const read = (body: object) =>
    call(fixture(), fixture().brandKey, 'POST', '/functions/v1/brand-agent', {
      body: { action: 'context', workspace_id: fixture().workspaceId, ...body },
    });

  it('describes a read of some sections as those sections, with only workspace_id, updated_at and version required', async () => {
    const document = await openApiDocument(fixture());
    const sections = document.components.schemas.BrandContextSections as { required?: string[] };
    expect(sections.required).toEqual(['workspace_id', 'updated_at', 'version']);
    const answer: unknown = (await read({ sections: ['voice', 'colors'] })).json();
    expect(Object.keys(answer as object)).toEqual([
      'workspace_id',
      'voice',
      'colors',
      'updated_at',
      'version',
    ]);
    expect(schemaAt(document, READ_JSON)(answer)).toBe(true);
    // The whole object's schema requires every section: described as it, the answer would be invalid.
    expect(schemaAt(document, '/components/schemas/BrandContext')(answer)).toBe(false);
    expect(schemaAt(document, READ_JSON)((await read({})).json())).toBe(true);
  });

  it('describes the dtcg answer as a design-token file, not as the brand object', async () => {
    const document = await openApiDocument(fixture());
    const tokens = await read({ format: 'dtcg' });
    expect(tokens.headers['content-type']).toBe('application/design-tokens+json; charset=utf-8');
    const isTokens = schemaAt(document, READ_DTCG);
    expect(isTokens(tokens.json())).toBe(true);
    expect(isTokens((await read({ format: 'dtcg', sections: ['fonts'] })).json())).toBe(true);
    expect(isTokens((await read({})).json())).toBe(false);
    expect(isTokens({ color: { primary: '#FF0000' } })).toBe(false);
  });
});

/** Requests that fail, by the operation (`METHOD /path` of the document) they are sent to. */
type ProvokedProblems = Record<
  string,
  [expected: string, url: string, credential?: string, options?: CallOptions][]
>;

describeEachBackend('Documented problems are the ones the API answers', (backend) => {
  const fixture = useFixture(backend);

  it('documents the status and code of every problem a request provokes, on the operation it was sent to', async () => {
    const f = fixture();
    const document = await openApiDocument(f);
    const ws = `/api/v1/workspaces/${f.workspaceId}`;
    const draft = await newDraft(f);
    const scheduled = await newDraft(f);
    expect((await campaignsApi(f, f.owner.token).schedule(scheduled.id)).statusCode).toBe(200);
    const personal = await call(f, f.owner.token, 'POST', '/api/v1/tokens', { body: { name: 'script' } });
    const personalToken = personal.json<{ token: string }>().token;
    const json = (body: unknown): CallOptions => ({ body });
    const raw = (rawBody: string, contentType = 'application/json'): CallOptions => ({
      rawBody,
      headers: { 'content-type': contentType },
    });
    const context = { action: 'context', workspace_id: f.workspaceId };
    const read = '/functions/v1/brand-agent';
    const { brandKey, apiKey } = f;
    const owner = f.owner.token;
    const member = f.member.token;
    // An endpoint with a delivery leased as if a worker were sending it, and a disabled endpoint.
    const webhookBody = { url: 'https://hooks.example.com/in', events: ['*'] };
    const newWebhook = async () =>
      (await call(f, owner, 'POST', `${ws}/webhooks`, json(webhookBody))).json<{ id: string }>().id;
    const webhookId = await newWebhook();
    const hook = `${ws}/webhooks/${webhookId}`;
    const test = await call(f, owner, 'POST', `${hook}/test`);
    const deliveryId = test.json<{ delivery_id: string }>().delivery_id;
    const now = f.clock.now();
    const leased = await f.store.deliveries.claim({
      lease: 'openapi-test',
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + 60_000).toISOString(),
      limit: 10,
    });
    expect(leased.map((delivery) => delivery.id)).toContain(deliveryId);
    const disabled = `${ws}/webhooks/${await newWebhook()}`;
    expect((await call(f, owner, 'PATCH', disabled, json({ enabled: false }))).statusCode).toBe(200);
    // A transactional email key and a message it sent, under an Idempotency-Key.
    const { key: emailKey } = await emailKeyWithSender(f, f.workspaceId);
    const sent = '/email/v1/messages';
    const reused = { body: message(), headers: { 'idempotency-key': 'openapi-1' } };
    expect((await call(f, emailKey, 'POST', sent, reused)).statusCode).toBe(202);
    const { id: messageId } = await sendEmail(f, emailKey);

    const provoked: ProvokedProblems = {
      // The read operation, in its order of checks.
      'POST /functions/v1/brand-agent': [
        ['401 missing_key', read, undefined, json(context)],
        ['415 unsupported_media_type', read, brandKey, raw('x', 'text/plain')],
        ['413 payload_too_large', read, brandKey, raw('x'.repeat(17 * 1024))],
        ['400 invalid_json', read, brandKey, raw('{')],
        ['400 unsupported_action', read, brandKey, json({ ...context, action: 'write' })],
        ['403 workspace_forbidden', read, brandKey, json({ ...context, workspace_id: f.otherWorkspaceId })],
        ['404 workspace_not_found', read, brandKey, json({ ...context, workspace_id: 'ws_none' })],
      ],
      'POST /auth/v1/token': [
        [
          '401 invalid_credentials',
          '/auth/v1/token',
          undefined,
          json({ email: 'a@b.example', password: 'no' }),
        ],
        ['400 invalid_request', '/auth/v1/token', undefined, json({ email: 'a@b.example' })],
      ],
      'POST /auth/v1/session': [
        ['415 unsupported_media_type', '/auth/v1/session', undefined, raw('email=a', 'text/html')],
      ],
      'GET /auth/v1/session': [['401 missing_token', '/auth/v1/session']],
      'DELETE /auth/v1/session': [['403 csrf_failed', '/auth/v1/session']],
      'GET /api/v1/workspaces': [
        ['401 missing_token', '/api/v1/workspaces'],
        ['403 brand_key_not_allowed', '/api/v1/workspaces', brandKey],
      ],
      'POST /api/v1/workspaces': [
        ['403 api_key_not_allowed', '/api/v1/workspaces', apiKey, json({ name: 'x' })],
        ['400 invalid_request', '/api/v1/workspaces', owner, json({})],
      ],
      'GET /api/v1/workspaces/{id}/brand': [
        ['403 workspace_forbidden', `/api/v1/workspaces/${f.otherWorkspaceId}/brand`, owner],
        ['404 workspace_not_found', '/api/v1/workspaces/ws_none/brand', owner],
      ],
      'PUT /api/v1/workspaces/{id}/brand': [
        ['403 insufficient_role', `${ws}/brand`, member, json({})],
        ['400 invalid_request', `${ws}/brand`, owner, json({ name: 42 })],
        [
          '412 precondition_failed',
          `${ws}/brand`,
          owner,
          { body: { name: 'Acme' }, headers: { 'if-match': '"999"' } },
        ],
      ],
      'POST /api/v1/workspaces/{id}/brand-keys': [
        ['403 insufficient_role', `${ws}/brand-keys`, member, json({ name: 'x' })],
      ],
      'DELETE /api/v1/workspaces/{id}/brand-keys/{key_id}': [
        ['404 key_not_found', `${ws}/brand-keys/bk_none`, owner],
      ],
      'DELETE /api/v1/workspaces/{id}/api-keys/{key_id}': [
        ['404 api_key_not_found', `${ws}/api-keys/ak_none`, owner],
      ],
      'POST /api/v1/workspaces/{id}/members': [
        ['409 member_exists', `${ws}/members`, owner, json({ email: f.member.user.email, role: 'member' })],
      ],
      'DELETE /api/v1/workspaces/{id}/members/{user_id}': [
        ['404 member_not_found', `${ws}/members/usr_none`, owner],
        ['409 last_owner', `${ws}/members/${f.owner.user.id}`, owner],
      ],
      'GET /api/v1/workspaces/{id}/audit-log': [['400 invalid_request', `${ws}/audit-log?limit=0`, owner]],
      'POST /api/v1/tokens': [['403 session_required', '/api/v1/tokens', personalToken, json({ name: 'x' })]],
      'DELETE /api/v1/tokens/{token_id}': [['404 token_not_found', '/api/v1/tokens/pat_none', owner]],
      'GET /api/v1/workspaces/{id}/campaigns': [
        ['400 invalid_request', `${ws}/campaigns?status=lost`, apiKey],
      ],
      'POST /api/v1/workspaces/{id}/campaigns': [
        ['413 payload_too_large', `${ws}/campaigns`, apiKey, raw('x'.repeat(5 * 1024 * 1024))],
      ],
      'GET /api/v1/workspaces/{id}/campaigns/{campaign_id}': [
        ['404 campaign_not_found', `${ws}/campaigns/cmp_none`, apiKey],
      ],
      'PATCH /api/v1/workspaces/{id}/campaigns/{campaign_id}': [
        [
          '412 version_mismatch',
          `${ws}/campaigns/${draft.id}`,
          apiKey,
          { body: { name: 'x' }, headers: { 'if-match': '"9"' } },
        ],
        ['409 campaign_not_draft', `${ws}/campaigns/${scheduled.id}`, apiKey, json({ name: 'x' })],
      ],
      'POST /api/v1/workspaces/{id}/campaigns/{campaign_id}/schedule': [
        ['409 campaign_not_draft', `${ws}/campaigns/${scheduled.id}/schedule`, apiKey],
        ['403 insufficient_role', `${ws}/campaigns/${draft.id}/schedule`, member],
      ],
      'GET /api/v1/workspaces/{id}/webhooks': [
        ['403 insufficient_role', `${ws}/webhooks`, member],
        ['403 api_key_not_allowed', `${ws}/webhooks`, apiKey],
      ],
      'POST /api/v1/workspaces/{id}/webhooks': [
        ['400 invalid_request', `${ws}/webhooks`, owner, json({ ...webhookBody, url: 'https://10.0.0.1/' })],
        ['403 insufficient_role', `${ws}/webhooks`, member, json(webhookBody)],
        ['400 invalid_json', `${ws}/webhooks`, owner, raw('{')],
      ],
      'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}': [
        ['404 webhook_not_found', `${ws}/webhooks/wh_none`, owner],
      ],
      'PATCH /api/v1/workspaces/{id}/webhooks/{webhook_id}': [
        ['404 webhook_not_found', `${ws}/webhooks/wh_none`, owner, json({ enabled: true })],
        ['400 invalid_request', hook, owner, json({})],
      ],
      'DELETE /api/v1/workspaces/{id}/webhooks/{webhook_id}': [
        ['404 webhook_not_found', `${ws}/webhooks/wh_none`, owner],
      ],
      'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/secret': [
        ['404 webhook_not_found', `${ws}/webhooks/wh_none/secret`, owner],
        ['403 insufficient_role', `${hook}/secret`, member],
      ],
      'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret': [
        ['404 webhook_not_found', `${ws}/webhooks/wh_none/rotate-secret`, owner],
      ],
      'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/test': [
        ['409 webhook_disabled', `${disabled}/test`, owner],
      ],
      'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries': [
        ['400 invalid_request', `${hook}/deliveries?cursor=nope`, owner],
      ],
      'GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}': [
        ['404 delivery_not_found', `${hook}/deliveries/dlv_none`, owner],
      ],
      'POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': [
        ['409 delivery_in_progress', `${hook}/deliveries/${deliveryId}/retry`, owner],
        ['404 delivery_not_found', `${hook}/deliveries/dlv_none/retry`, owner],
      ],
      'GET /api/v1/workspaces/{id}/email-messages': [
        ['403 email_key_not_allowed', `${ws}/email-messages`, emailKey],
        ['403 insufficient_role', `${ws}/email-messages`, member],
      ],
      'GET /api/v1/workspaces/{id}/email-messages/{message_id}': [
        ['404 email_message_not_found', `${ws}/email-messages/em_none`, owner],
      ],
      'GET /api/v1/workspaces/{id}/email-messages/{message_id}/content': [
        ['404 email_message_not_found', `${ws}/email-messages/${messageId}/content`, owner],
      ],
      'GET /api/v1/workspaces/{id}/email-messages/{message_id}/content.html': [
        ['404 email_message_not_found', `${ws}/email-messages/${messageId}/content.html`, owner],
      ],
      'POST /email/v1/messages': [
        ['401 email_key_missing', sent, undefined, json(message())],
        ['401 email_key_invalid', sent, apiKey, json(message())],
        ['400 invalid_request', sent, emailKey, json(message({ subject: 'a\r\nBcc: x@example.com' }))],
        ['422 sender_not_allowed', sent, emailKey, json(message({ from: 'a@elsewhere.example' }))],
        ['422 idempotency_key_reused', sent, emailKey, { ...reused, body: message({ subject: 'Other' }) }],
        ['413 payload_too_large', sent, emailKey, raw('x'.repeat(6 * 1024 * 1024))],
        ['415 unsupported_media_type', sent, emailKey, raw('to=a', 'text/html')],
      ],
      'GET /email/v1/messages': [['400 invalid_request', `${sent}?status=opened`, emailKey]],
      'GET /email/v1/messages/{message_id}': [
        ['404 email_message_not_found', `${sent}/em_none`, emailKey],
        ['401 email_key_invalid', `${sent}/${messageId}`, owner],
      ],
    };

    const undocumented: string[] = [];
    for (const [operation, requests] of Object.entries(provoked)) {
      const [method = '', path = ''] = operation.split(' ');
      for (const [expected, url, credential, options] of requests) {
        const answered = outcome(await call(f, credential, method, url, options));
        expect(answered, `${method} ${url}`).toBe(expected);
        const [status = '', code = ''] = answered.split(' ');
        const documented = document.paths[path]?.[method.toLowerCase()]?.responses[status];
        if (!documented?.description.includes(code)) undocumented.push(`${operation} ${answered}`);
      }
    }
    expect(undocumented).toEqual([]);
  });
});
