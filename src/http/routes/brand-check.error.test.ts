import { describe, expect, it } from 'vitest';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { CHECK_PATH, checkCopy } from '#test/support/fixtures/brand-check.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';

const REALM = 'Bearer realm="brand-context"';
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;

describeEachBackend(
  'POST /functions/v1/brand-check: errors, in the order of the read operation',
  (backend) => {
    const fixture = useFixture(backend);

    describe('step 1: method', () => {
      it.each(['GET', 'PUT', 'PATCH', 'DELETE'] as const)(
        'refuses %s with 405 and Allow: POST',
        async (method) => {
          const { app, workspaceId, brandKey } = fixture();
          const response = await app.inject({
            method,
            url: CHECK_PATH,
            headers: { authorization: `Bearer ${brandKey}` },
            ...(method === 'GET' ? {} : { payload: { workspace_id: workspaceId, content: {} } }),
          });
          expect(response.statusCode).toBe(405);
          expect(response.headers.allow).toBe('POST');
          expect(problemOf(response).code).toBe('method_not_allowed');
        },
      );

      it('refuses a method before the credential: no key is still a 405', async () => {
        const { app } = fixture();
        const response = await app.inject({ method: 'GET', url: CHECK_PATH });
        expect(response.statusCode).toBe(405);
      });
    });

    describe('step 2: the credential', () => {
      it('rejects a request without Authorization with 401 missing_key', async () => {
        const { app, workspaceId } = fixture();
        const response = await checkCopy(app, workspaceId, { text: 'Hello' });
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toBe(REALM);
        expect(problemOf(response).code).toBe('missing_key');
      });

      it.each([
        ['another scheme', (key: string) => `Basic ${key}`],
        ['a truncated key', (key: string) => `Bearer ${key.slice(0, -1)}`],
      ])('rejects %s with malformed_key', async (_label, authorization) => {
        const { app, workspaceId, brandKey } = fixture();
        const response = await checkCopy(
          app,
          workspaceId,
          { text: 'Hello' },
          {
            headers: { authorization: authorization(brandKey) },
          },
        );
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
        expect(problemOf(response).code).toBe('malformed_key');
      });

      it('rejects a well-formed key it does not know with invalid_key', async () => {
        const { app, workspaceId } = fixture();
        const response = await checkCopy(
          app,
          workspaceId,
          { text: 'Hello' },
          { credential: BRAND_KEY.generate() },
        );
        expect(response.statusCode).toBe(401);
        expect(problemOf(response).code).toBe('invalid_key');
      });

      it('checks the key before the body: a bad key with a bad body of the wrong type is a 401', async () => {
        const { app, workspaceId } = fixture();
        const response = await checkCopy(
          app,
          workspaceId,
          {},
          {
            credential: BRAND_KEY.generate(),
            rawBody: '{nope',
            headers: { 'content-type': 'text/plain' },
          },
        );
        expect(problemOf(response).code).toBe('invalid_key');
      });
    });

    describe('step 3: the body as bytes', () => {
      it.each([
        ['no Content-Type', { 'content-type': '' }],
        ['text/plain', { 'content-type': 'text/plain' }],
        ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
      ])('refuses %s with 415, before it looks at the body', async (_label, headers) => {
        const { app, workspaceId, brandKey } = fixture();
        const response = await checkCopy(
          app,
          workspaceId,
          {},
          { credential: brandKey, headers, rawBody: '{nope' },
        );
        expect(response.statusCode).toBe(415);
        expect(problemOf(response).code).toBe('unsupported_media_type');
        expect(response.headers['brand-key-expires']).toMatch(/^\d{4}-/);
      });

      it('refuses a body over 4 MiB with 413', async () => {
        const { app, workspaceId, brandKey } = fixture();
        const response = await checkCopy(
          app,
          workspaceId,
          { html: 'x'.repeat(4 * 1024 * 1024 + 1) },
          {
            credential: brandKey,
          },
        );
        expect(response.statusCode).toBe(413);
        expect(problemOf(response).code).toBe('payload_too_large');
      });

      it.each([
        ['broken JSON', '{"workspace_id": "ws_x",'],
        ['an empty body', ''],
      ])('refuses %s with invalid_json', async (_label, rawBody) => {
        const { app, workspaceId, brandKey } = fixture();
        const response = await checkCopy(app, workspaceId, {}, { credential: brandKey, rawBody });
        expect(response.statusCode).toBe(400);
        expect(problemOf(response).code).toBe('invalid_json');
      });
    });

    describe('step 4: the fields', () => {
      it.each([
        ['no content', (ws: string) => ({ workspace_id: ws })],
        ['no workspace_id', () => ({ content: { text: 'Hi' } })],
        [
          'a field the content does not have',
          (ws: string) => ({ workspace_id: ws, content: { body: 'Hi' } }),
        ],
        [
          'a field the body does not have',
          (ws: string) => ({ workspace_id: ws, content: {}, action: 'context' }),
        ],
        ['a text that is not a string', (ws: string) => ({ workspace_id: ws, content: { text: 42 } })],
        ['a version of 0', (ws: string) => ({ workspace_id: ws, content: {}, version: 0 })],
        [
          'a version that is not an integer',
          (ws: string) => ({ workspace_id: ws, content: {}, version: 1.5 }),
        ],
        [
          'a subject over 255 characters',
          (ws: string) => ({ workspace_id: ws, content: { subject: 'x'.repeat(256) } }),
        ],
      ])('refuses %s with 400 invalid_request', async (_label, body) => {
        const { app, workspaceId, brandKey } = fixture();
        const response = await checkCopy(
          app,
          workspaceId,
          {},
          { credential: brandKey, body: body(workspaceId) },
        );
        expect(response.statusCode).toBe(400);
        expect(problemOf(response).code).toBe('invalid_request');
      });

      it('reports invalid fields before the workspace: a bad body for another workspace is a 400', async () => {
        const { app, otherWorkspaceId, brandKey } = fixture();
        const response = await checkCopy(
          app,
          otherWorkspaceId,
          {},
          {
            credential: brandKey,
            body: { workspace_id: otherWorkspaceId, content: { text: 42 } },
          },
        );
        expect(response.statusCode).toBe(400);
      });
    });

    describe('steps 5-6: the workspace, then the version', () => {
      it('answers 404 workspace_not_found for a workspace that does not exist', async () => {
        const { app, brandKey } = fixture();
        const response = await checkCopy(
          app,
          'ws_doesnotexist000000000000',
          { text: 'Hi' },
          { credential: brandKey },
        );
        expect(response.statusCode).toBe(404);
        expect(problemOf(response).code).toBe('workspace_not_found');
      });

      it('answers 403 workspace_forbidden for another existing workspace', async () => {
        const { app, otherWorkspaceId, brandKey } = fixture();
        const response = await checkCopy(app, otherWorkspaceId, { text: 'Hi' }, { credential: brandKey });
        expect(response.statusCode).toBe(403);
        expect(problemOf(response).code).toBe('workspace_forbidden');
      });

      it('answers 404 version_not_found for a version the brand does not have (yet)', async () => {
        const { app, workspaceId, brandKey } = fixture();
        for (const version of [9999, 2 ** 31]) {
          const response = await checkCopy(
            app,
            workspaceId,
            {},
            {
              credential: brandKey,
              body: { workspace_id: workspaceId, content: { text: 'Hi' }, version },
            },
          );
          expect(response.statusCode).toBe(404);
          expect(problemOf(response).code).toBe('version_not_found');
        }
      });
    });

    it('refuses a workspace API key with malformed_key, as the read operation does', async () => {
      const { app, workspaceId, apiKey } = fixture();
      const response = await checkCopy(app, workspaceId, { text: 'Hi' }, { credential: apiKey });
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('malformed_key');
    });
  },
);
