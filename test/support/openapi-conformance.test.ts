import { describe, expect, it } from 'vitest';
import { PROBLEM_CONTENT_TYPE } from '../../src/http/problem.js';
import {
  type Answer,
  describesAnswer,
  type OpenApiDocument,
  OUTSIDE,
  takeTally,
} from './openapi-conformance.js';
import { listenOnLoopback } from './app.js';
import { sqliteBackend } from './databases.js';
import { useFixture } from './http-fixture.js';

const problem = { $ref: '#/components/schemas/Problem' };
const document: OpenApiDocument & { components: object } = {
  info: { description: 'Any request can be refused before an operation: 408 `request_timeout`.' },
  paths: {
    '/things/{id}': {
      get: {
        responses: {
          200: {
            description: 'A thing',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { id: { type: 'string' }, size: { type: 'integer' } },
                  required: ['id', 'size'],
                },
              },
            },
          },
          404: {
            description: 'Not found (`thing_not_found`)',
            content: { [PROBLEM_CONTENT_TYPE]: { schema: problem } },
          },
        },
      },
    },
    '/things/current': { get: { responses: { 204: { description: 'No body' } } } },
  },
  components: {
    schemas: {
      Problem: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
  },
};

function answer(status: number, body: unknown, overrides: Partial<Answer> = {}): Answer {
  return {
    method: 'GET',
    url: '/things/th_1?expand=1',
    status,
    contentType: 'application/json; charset=utf-8',
    body: Buffer.from(body === undefined ? '' : JSON.stringify(body)),
    truncated: false,
    ...overrides,
  };
}
const problemAnswer = (status: number, code: string) =>
  answer(status, { code }, { contentType: `${PROBLEM_CONTENT_TYPE}; charset=utf-8` });

describe('Checking answers against an OpenAPI document', () => {
  it('accepts an answer its operation documents, status, media type and body', () => {
    expect(describesAnswer(document, answer(200, { id: 'th_1', size: 3 }))).toBeUndefined();
    expect(describesAnswer(document, problemAnswer(404, 'thing_not_found'))).toBeUndefined();
    expect(describesAnswer(document, answer(200, undefined, { method: 'HEAD' }))).toBeUndefined();
  });

  it('refuses a body its schema does not allow, naming the field', () => {
    expect(describesAnswer(document, answer(200, { id: 'th_1' }))).toMatch(
      /^GET \/things\/\{id\} 200: body does not match the schema: \/ must have required property 'size'/,
    );
  });

  it('refuses a status, a media type or a problem code the operation does not document', () => {
    expect(describesAnswer(document, problemAnswer(409, 'conflict'))).toMatch(/409: status not documented/);
    expect(
      describesAnswer(document, answer(200, 'x', { contentType: 'text/plain', body: Buffer.from('x') })),
    ).toMatch(/media type text\/plain not documented/);
    expect(describesAnswer(document, problemAnswer(404, 'workspace_not_found'))).toMatch(
      /problem code workspace_not_found not among/,
    );
    expect(describesAnswer(document, answer(200, undefined))).toMatch(/no body, but the document gives/);
  });

  it('accepts a problem the document says any request may answer, and nothing else undocumented', () => {
    expect(describesAnswer(document, problemAnswer(408, 'request_timeout'))).toBeUndefined();
    expect(describesAnswer(document, problemAnswer(408, 'other'))).toMatch(/status not documented/);
  });

  it('picks the most literal path, and leaves requests no operation names outside', () => {
    expect(describesAnswer(document, answer(204, undefined, { url: '/things/current' }))).toBeUndefined();
    expect(describesAnswer(document, answer(200, {}, { url: '/elsewhere' }))).toBe(OUTSIDE);
    expect(describesAnswer(document, answer(200, {}, { method: 'POST' }))).toBe(OUTSIDE);
  });
});

describe('Recording a test app’s answers', () => {
  const fixture = useFixture(sqliteBackend, { app: { logLevel: 'info' } });

  it('records answers to injected requests and to requests on a socket, the read operation’s included', async () => {
    const f = fixture();
    takeTally();
    const port = await listenOnLoopback(f.app);
    expect((await f.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    for (const expected of [200, 200]) {
      const read = await fetch(`http://127.0.0.1:${String(port)}/functions/v1/brand-agent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${f.brandKey}` },
        body: JSON.stringify({ action: 'context', workspace_id: f.workspaceId }),
      });
      expect(read.status).toBe(expected);
      await read.text();
    }
    await f.app.inject({ method: 'GET', url: '/no-such-page' });
    expect(takeTally()).toEqual({ validated: 3, outside: 1, failures: [] });
  });
});
