import { describe, expect, it } from 'vitest';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { BRAND_KEY_LIFETIME_MS } from '../../core/key-lifecycle.js';
import { createBrandKey, revokeBrandKey } from '../../services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { addUser, bearer } from '#test/support/users.js';
import { PATH, readContext } from '#test/support/fixtures/brand-agent.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import { OPERATOR } from '../../services/audit/audit.js';

const SPEC_401 = 'Revoke the key and create a replacement in Settings → Agent Access.';
const REALM = 'Bearer realm="brand-context"';
const INVALID_TOKEN = `${REALM}, error="invalid_token"`;
/** A valid body to add a read option to (docs/reading-brand-context.md "Formats and sections"). */
const VIEW = { action: 'context', workspace_id: 'ws_x' };

describeEachBackend('POST /functions/v1/brand-agent: errors', (backend) => {
  const fixture = useFixture(backend);

  describe('step 1: method', () => {
    it.each(['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)(
      'refuses %s with 405 and Allow: POST',
      async (method) => {
        const { app, workspaceId, brandKey: key } = fixture();
        const response = await readContext(app, workspaceId, { key, method });
        expect(response.statusCode).toBe(405);
        expect(response.headers.allow).toBe('POST');
        expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(problemOf(response).code).toBe('method_not_allowed');
      },
    );

    it('refuses HEAD with 405 and Allow: POST', async () => {
      const { app } = fixture();
      const response = await app.inject({ method: 'HEAD', url: PATH });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
    });

    it.each(['PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const)(
      'refuses %s with a JSON content type and an empty body with 405, before reading the body',
      async (method) => {
        const { app, workspaceId } = fixture();
        const response = await readContext(app, workspaceId, { method, rawBody: '' });
        expect(response.statusCode).toBe(405);
        expect(response.headers.allow).toBe('POST');
        expect(problemOf(response).code).toBe('method_not_allowed');
      },
    );

    it.each(['TRACE', 'SEARCH', 'PROPFIND'] as const)('refuses %s with 405 too', async (method) => {
      const { app } = fixture();
      const response = await app.inject({ method, url: PATH });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('POST');
      expect(problemOf(response).code).toBe('method_not_allowed');
    });
  });

  describe('steps 2-3: the key', () => {
    it('rejects a request without Authorization with missing_key', async () => {
      const { app, workspaceId } = fixture();
      const response = await readContext(app, workspaceId);
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(REALM);
      const problem = problemOf(response);
      expect(problem).toMatchObject({
        status: 401,
        code: 'missing_key',
        type: 'urn:brand-context:problem:missing_key',
      });
      expect(problem.request_id).toBe(response.headers['x-request-id']);
      expect(problem.resolution).toMatch(/^Send the key as "Authorization: Bearer brk_…"/);
    });

    it.each([
      ['another scheme', (key: string) => `Basic ${key}`],
      ['a bearer without a token', () => 'Bearer'],
      ['two tokens', (key: string) => `Bearer ${key} ${key}`],
      ['a token of the wrong shape', () => 'Bearer sk_live_1234'],
      ['a truncated key', (key: string) => `Bearer ${key.slice(0, -1)}`],
      ['a key with a bad checksum', (key: string) => `Bearer ${key.slice(0, -6)}000000`],
    ])('rejects %s with malformed_key', async (_label, authorization) => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, { authorization: authorization(key) });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
      expect(problemOf(response).code).toBe('malformed_key');
      expect(problemOf(response).resolution).toMatch(/^Send the whole key as "Authorization: Bearer brk_…"/);
    });

    it('rejects a well-formed key it does not know with invalid_key', async () => {
      const { app, workspaceId } = fixture();
      const response = await readContext(app, workspaceId, { key: BRAND_KEY.generate() });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
      expect(problemOf(response)).toMatchObject({ code: 'invalid_key', resolution: SPEC_401 });
    });

    it('rejects a key 90 days after its creation with key_expired', async () => {
      const { app, deps, clock, workspaceId } = fixture();
      const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'short-lived' });
      expect((await readContext(app, workspaceId, { key: created.key })).statusCode).toBe(200);
      clock.advance(BRAND_KEY_LIFETIME_MS);
      try {
        const response = await readContext(app, workspaceId, { key: created.key });
        expect(response.statusCode).toBe(401);
        expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
        expect(problemOf(response)).toMatchObject({ code: 'key_expired', resolution: SPEC_401 });
        expect(problemOf(response).detail).toContain(created.expires_at);
      } finally {
        clock.advance(-BRAND_KEY_LIFETIME_MS);
      }
    });

    it('rejects a revoked key with key_revoked on the very next request', async () => {
      const { app, deps, workspaceId } = fixture();
      const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'to revoke' });
      expect((await readContext(app, workspaceId, { key: created.key })).statusCode).toBe(200);
      await revokeBrandKey(deps, OPERATOR, workspaceId, created.id);
      const response = await readContext(app, workspaceId, { key: created.key });
      expect(response.statusCode).toBe(401);
      expect(response.headers['www-authenticate']).toBe(INVALID_TOKEN);
      expect(problemOf(response)).toMatchObject({ code: 'key_revoked', resolution: SPEC_401 });
    });

    it('rejects a key revoked by a process whose clock runs 10 s ahead, on the very next request', async () => {
      const { app, deps, clock, workspaceId } = fixture();
      const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'revoked by a fast clock' });
      expect((await readContext(app, workspaceId, { key: created.key })).statusCode).toBe(200);
      const fastClock = { now: () => clock.now() + 10_000 };
      await revokeBrandKey({ ...deps, clock: fastClock }, OPERATOR, workspaceId, created.id);
      const response = await readContext(app, workspaceId, { key: created.key });
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('key_revoked');
    });

    it('reports a key revoked after it expired as revoked', async () => {
      const { app, deps, clock, workspaceId } = fixture();
      const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'expired then revoked' });
      clock.advance(BRAND_KEY_LIFETIME_MS + 1000);
      try {
        expect(problemOf(await readContext(app, workspaceId, { key: created.key })).code).toBe('key_expired');
        await revokeBrandKey(deps, OPERATOR, workspaceId, created.id);
        expect(problemOf(await readContext(app, workspaceId, { key: created.key })).code).toBe('key_revoked');
      } finally {
        clock.advance(-(BRAND_KEY_LIFETIME_MS + 1000));
      }
    });

    it('checks the key before the body: a bad key with a bad body is a 401', async () => {
      const { app, workspaceId } = fixture();
      const response = await readContext(app, workspaceId, {
        key: BRAND_KEY.generate(),
        rawBody: '{nope',
        headers: { 'content-type': 'text/plain' },
      });
      expect(problemOf(response).code).toBe('invalid_key');
    });
  });

  describe('step 4: the body as bytes', () => {
    it.each([
      ['no Content-Type', { 'content-type': '' }],
      ['text/plain', { 'content-type': 'text/plain' }],
      ['a form', { 'content-type': 'application/x-www-form-urlencoded' }],
    ])('refuses %s with 415', async (_label, headers) => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, { key, headers });
      expect(response.statusCode).toBe(415);
      expect(problemOf(response).code).toBe('unsupported_media_type');
    });

    it('refuses a body over 16 KiB with 413', async () => {
      const { app, workspaceId, brandKey: key } = fixture();
      const body = { action: 'context', workspace_id: workspaceId, padding: 'x'.repeat(16 * 1024) };
      const response = await readContext(app, workspaceId, { key, body });
      expect(response.statusCode).toBe(413);
      expect(problemOf(response).code).toBe('payload_too_large');
    });

    it.each([
      ['broken JSON', '{"action": "context",'],
      ['an empty body', ''],
      [
        'a prototype-poisoning body',
        '{"__proto__": {"admin": true}, "action": "context", "workspace_id": "ws_x"}',
      ],
    ])('refuses %s with invalid_json', async (_label, rawBody) => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, { key, rawBody });
      expect(response.statusCode).toBe(400);
      expect(problemOf(response).code).toBe('invalid_json');
    });
  });

  describe('step 5: the fields', () => {
    it.each([
      ['an array', [1], ''],
      ['a string', 'context', ''],
      ['null', null, ''],
      ['a missing workspace_id', { action: 'context' }, 'workspace_id'],
      ['a numeric workspace_id', { action: 'context', workspace_id: 42 }, 'workspace_id'],
      ['an empty workspace_id', { action: 'context', workspace_id: '' }, 'workspace_id'],
      [
        'a workspace_id over 128 characters',
        { action: 'context', workspace_id: `ws_${'a'.repeat(126)}` },
        'workspace_id',
      ],
      ['a missing action', { workspace_id: 'ws_x' }, 'action'],
      ['a non-string action', { action: 1, workspace_id: 'ws_x' }, 'action'],
      ['an unknown field', { action: 'context', workspace_id: 'ws_x', scope: 'all' }, 'scope'],
      ['an unknown format', { ...VIEW, format: 'yaml' }, 'format'],
      ['an unknown section', { ...VIEW, sections: ['voice', 'logo'] }, 'sections[1]'],
      ['sections that are not an array', { ...VIEW, sections: 'voice' }, 'sections'],
      ['empty sections', { ...VIEW, sections: [] }, 'sections'],
      ['an unknown knowledge kind', { ...VIEW, knowledge_kinds: ['rumor'] }, 'knowledge_kinds[0]'],
      ['an empty knowledge tag', { ...VIEW, knowledge_tags: ['style', ' '] }, 'knowledge_tags[1]'],
      [
        'a knowledge filter without the knowledge section',
        { ...VIEW, sections: ['voice'], knowledge_kinds: ['fact'] },
        'knowledge_kinds',
      ],
      ['dtcg with voice', { ...VIEW, format: 'dtcg', sections: ['colors', 'voice'] }, 'sections'],
      [
        'dtcg with a knowledge filter',
        { ...VIEW, format: 'dtcg', knowledge_tags: ['style'] },
        'knowledge_tags',
      ],
      ['an unknown field beside the options', { ...VIEW, format: 'markdown', style: 'terse' }, 'style'],
    ])('refuses %s with invalid_request naming the field', async (_label, body, field) => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, { key, body });
      expect(response.statusCode).toBe(400);
      const problem = problemOf(response);
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors?.map((issue) => issue.field)).toEqual([field]);
    });

    it.each([
      ['a missing workspace_id', 'workspace_id', 'is required', { action: 'context' }],
      ['a missing action', 'action', 'is required', { workspace_id: 'ws_x' }],
      ['a numeric workspace_id', 'workspace_id', 'must be a string', { action: 'context', workspace_id: 42 }],
      ['an action that is null', 'action', 'must be a string', { action: null, workspace_id: 'ws_x' }],
    ])('says of %s that %s %s', async (_label, field, message, body) => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, { key, body });
      expect(problemOf(response).errors).toEqual([{ field, message }]);
    });

    it('says how to mend options that do not go together, in sentences that start with the field', async () => {
      const { app, workspaceId, brandKey: key } = fixture();
      const problemFor = async (options: object) => {
        const body = { action: 'context', workspace_id: workspaceId, ...options };
        return problemOf(await readContext(app, workspaceId, { key, body }));
      };
      const messageOf = async (options: object) => (await problemFor(options)).errors?.[0]?.message;
      expect((await problemFor({ sections: ['voice'], knowledge_tags: ['style'] })).detail).toBe(
        'Invalid request: knowledge_tags needs "knowledge" in sections: it filters that section.',
      );
      expect(await messageOf({ format: 'dtcg', sections: ['colors', 'voice', 'skills'] })).toBe(
        'can name only colors and fonts with format dtcg, not voice, skills',
      );
      expect(await messageOf({ format: 'dtcg', knowledge_kinds: ['fact'] })).toBe(
        'cannot be used with format dtcg, which carries no knowledge',
      );
    });

    it('refuses an action other than context with unsupported_action', async () => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, {
        key,
        body: { action: 'write', workspace_id: workspaceId },
      });
      expect(response.statusCode).toBe(400);
      expect(problemOf(response)).toMatchObject({ code: 'unsupported_action' });
      expect(problemOf(response).resolution).toContain('"context"');
    });

    it('reports invalid fields before an unsupported action', async () => {
      const { app, workspaceId, brandKey: key } = fixture();
      const response = await readContext(app, workspaceId, {
        key,
        body: { action: 'write', workspace_id: workspaceId, extra: 1 },
      });
      expect(problemOf(response).code).toBe('invalid_request');
    });
  });

  describe('steps 6-7: the workspace', () => {
    it('answers 404 workspace_not_found for a workspace that does not exist', async () => {
      const { app, brandKey: key } = fixture();
      const response = await readContext(app, 'ws_doesnotexist000000000000', { key });
      expect(response.statusCode).toBe(404);
      expect(problemOf(response)).toMatchObject({
        code: 'workspace_not_found',
        resolution: 'Check the workspace id in Settings → Agent Access.',
      });
    });

    it('answers 403 workspace_forbidden for another existing workspace', async () => {
      const { app, otherWorkspaceId, brandKey: key } = fixture();
      const response = await readContext(app, otherWorkspaceId, { key });
      expect(response.statusCode).toBe(403);
      expect(problemOf(response)).toMatchObject({
        code: 'workspace_forbidden',
        resolution: 'Confirm that the key was created within that workspace.',
      });
    });

    it("advises a non-member's user token about membership, not about keys, here and on the API", async () => {
      const f = fixture();
      const stranger = await addUser(f);
      const responses = [
        await readContext(f.app, f.workspaceId, { key: stranger.token }),
        await f.app.inject({
          method: 'GET',
          url: `/api/v1/workspaces/${f.workspaceId}/brand`,
          headers: bearer(stranger.token),
        }),
      ];
      for (const response of responses) {
        expect(response.statusCode).toBe(403);
        const problem = problemOf(response);
        expect(problem).toMatchObject({
          code: 'workspace_forbidden',
          title: 'No access to this workspace',
          detail: `You are not a member of workspace ${f.workspaceId}.`,
        });
        expect(problem.resolution).toContain('add your account as a member');
        expect(`${problem.title} ${problem.resolution}`).not.toMatch(/\bkey\b/i);
      }
    });
  });

  it('refuses a workspace API key with malformed_key, saying which key it is and which one to send', async () => {
    const { app, workspaceId, apiKey } = fixture();
    const problem = problemOf(await readContext(app, workspaceId, { key: apiKey }));
    expect(problem.code).toBe('malformed_key');
    expect(problem.detail).toBe(
      'This is a workspace API key (wsk_…), which the read operation does not take; it takes a brand read key (brk_…).',
    );
    expect(problem.resolution).toBe(
      'Send a brand read key of the workspace: create one in Settings → Agent Access.',
    );
  });

  it('answers an unknown route with a 404 problem', async () => {
    const { app } = fixture();
    const response = await app.inject({ method: 'GET', url: '/functions/v1/other' });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(problemOf(response).code).toBe('not_found');
  });
});
