import { describe, expect, it } from 'vitest';
import type { BrandContext } from '../../core/brand-context.js';
import { BRAND_KEY_LIFETIME_MS } from '../../core/key-lifecycle.js';
import { BRAND_KEY, WORKSPACE_API_KEY } from '../../core/secret-keys.js';
import { createApiKey, createBrandKey } from '../../services/keys/keys.js';
import { getBrand, replaceBrand } from '../../services/brand/brand.js';
import { DEMO_BRAND } from '../../services/demo/demo-brand.js';
import { createWorkspace } from '../../services/accounts/workspaces.js';
import { listenOnLoopback } from '#test/support/app.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import {
  BRAND_CONTEXT_KEY_ORDER,
  EMPTY_BRAND_SECTIONS,
  readContext,
} from '#test/support/fixtures/brand-agent.js';
import { createEmailKey } from '#test/support/fixtures/keys.js';
import { call, useFixture } from '#test/support/http-fixture.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { parseBrandDocument } from '../../core/brand-context.js';

describeEachBackend('POST /functions/v1/brand-agent: happy path', (backend) => {
  const fixture = useFixture(backend);

  it('returns the complete brand context with 200', async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    const response = await readContext(app, workspaceId, { key });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    const context = response.json<BrandContext>();
    expect(Object.keys(context)).toEqual(BRAND_CONTEXT_KEY_ORDER);
    expect(context.workspace_id).toBe(workspaceId);
    expect(context.name).toBe('Acme Coffee');
    expect(context.colors.primary).toBe('#6B3E26');
    expect(context.fonts.heading?.family).toBe('Fraunces');
    expect(context.social.instagram).toMatch(/^https:\/\//);
    expect(context.knowledge).toHaveLength(20);
    expect(context.knowledge[0]).toMatchObject({
      id: expect.stringMatching(/^kb_/) as string,
      kind: 'fact',
      title: 'Founded',
    });
    expect(context.assets[0]).toMatchObject({ kind: 'logo', mime_type: 'image/svg+xml', width: 512 });
    expect(context.skills.map((skill) => skill.name)).toContain('Subject lines');
    expect(context.preferences).toMatchObject({ language: 'en', sign_off: '— The Acme crew' });
    expect(context.version).toBeGreaterThan(1);
  });

  it('returns exactly what the stored brand is', async () => {
    const { app, deps, workspaceId, brandKey: key } = fixture();
    const response = await readContext(app, workspaceId, { key });
    expect(response.json()).toEqual(await getBrand(deps, workspaceId));
  });

  it('gives an empty brand every field, with empty values rather than missing ones', async () => {
    const { app, deps } = fixture();
    const workspace = await createWorkspace(deps, OPERATOR, { name: 'Blank' });
    const created = await createBrandKey(deps, OPERATOR, { workspaceId: workspace.id, name: 'blank' });
    const response = await readContext(app, workspace.id, { key: created.key });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      workspace_id: workspace.id,
      name: 'Blank',
      ...EMPTY_BRAND_SECTIONS,
      updated_at: expect.any(String) as string,
      version: 1,
    });
  });

  it('sends an ETag with Cache-Control private, no-cache, and answers If-None-Match with 304', async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    const first = await readContext(app, workspaceId, { key });
    const etag = first.headers.etag;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(first.headers['cache-control']).toBe('private, no-cache');

    const again = await readContext(app, workspaceId, { key, headers: { 'if-none-match': String(etag) } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);

    const stale = await readContext(app, workspaceId, {
      key,
      headers: { 'if-none-match': '"something-else"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('evaluates If-None-Match as an origin does: weak tags, lists and *, whatever Cache-Control says', async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    const etag = String((await readContext(app, workspaceId, { key })).headers.etag);
    for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const response = await readContext(app, workspaceId, {
        key,
        headers: { 'if-none-match': ifNoneMatch, 'cache-control': 'no-cache', pragma: 'no-cache' },
      });
      expect(response.statusCode, ifNoneMatch).toBe(304);
    }
  });

  it("answers Node's fetch (which adds Cache-Control: no-cache) with an empty 304", async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    const port = await listenOnLoopback(app);
    try {
      const read = (headers: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${String(port)}/functions/v1/brand-agent`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
        });
      const first = await read();
      const etag = first.headers.get('etag') ?? '';
      await first.arrayBuffer();
      const again = await read({ 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('content-length')).not.toBe('4');
      expect(await again.text()).toBe('');
    } finally {
      app.server.close();
    }
  });

  it('serves a brand change made in this process on the very next request, with a new ETag', async () => {
    const { app, deps, workspaceId, brandKey: key } = fixture();
    const before = await readContext(app, workspaceId, { key });
    await replaceBrand(
      deps,
      OPERATOR,
      workspaceId,
      parseBrandDocument({ ...DEMO_BRAND, voice: 'Bold and brief.' }),
    );
    const after = await readContext(app, workspaceId, { key });
    expect(after.json<BrandContext>().voice).toBe('Bold and brief.');
    expect(after.json<BrandContext>().version).toBe(before.json<BrandContext>().version + 1);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    await replaceBrand(deps, OPERATOR, workspaceId, parseBrandDocument(DEMO_BRAND));
  });

  it('changes nothing in the database', async () => {
    const { app, database, workspaceId, brandKey: key } = fixture();
    const before = await snapshotTables(database.config);
    for (let i = 0; i < 3; i++) expect((await readContext(app, workspaceId, { key })).statusCode).toBe(200);
    expect(await snapshotTables(database.config)).toEqual(before);
  });

  it('accepts the bearer scheme in any case and a JSON content type with a charset', async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    const response = await readContext(app, workspaceId, {
      authorization: `bearer ${key}`,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(response.statusCode).toBe(200);
  });

  it('keeps accepting a key until the last millisecond of its 90 days', async () => {
    const { app, deps, clock, workspaceId } = fixture();
    const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'almost expired' });
    clock.advance(BRAND_KEY_LIFETIME_MS - 1);
    try {
      expect((await readContext(app, workspaceId, { key: created.key })).statusCode).toBe(200);
    } finally {
      clock.advance(-(BRAND_KEY_LIFETIME_MS - 1));
    }
  });

  it("keeps a load balancer's X-Request-Id (a UUID, or nginx's hex id) and puts it in the response", async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    for (const id of ['5f3afc66-34dc-4a90-97e3-47633dd69465', 'a3f1c2d4e5b60718293a4b5c6d7e8f90']) {
      const response = await readContext(app, workspaceId, { key, headers: { 'x-request-id': id } });
      expect(response.headers['x-request-id']).toBe(id);
    }
  });

  describe('Brand-Key-Expires', () => {
    const EXPIRES = 'brand-key-expires';

    it("says when the brand read key expires on a 200 and a 304, as the key's expires_at", async () => {
      const { app, deps, workspaceId } = fixture();
      const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'announced' });
      const first = await readContext(app, workspaceId, { key: created.key });
      expect(first.statusCode).toBe(200);
      expect(first.headers[EXPIRES]).toBe(created.expires_at);
      const again = await readContext(app, workspaceId, {
        key: created.key,
        headers: { 'if-none-match': String(first.headers.etag) },
      });
      expect(again.statusCode).toBe(304);
      expect(again.headers[EXPIRES]).toBe(created.expires_at);
    });

    it('says it on a refusal after the key is known: 403 workspace_forbidden', async () => {
      const { app, deps, workspaceId, otherWorkspaceId } = fixture();
      const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'elsewhere' });
      const response = await readContext(app, otherWorkspaceId, { key: created.key });
      expect(response.statusCode).toBe(403);
      expect(response.headers[EXPIRES]).toBe(created.expires_at);
    });

    it('says it to a workspace API key on /api/v1', async () => {
      const f = fixture();
      const created = await createApiKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'announced' });
      const response = await call(f, created.key, 'GET', `/api/v1/workspaces/${f.workspaceId}/campaigns`);
      expect(response.statusCode).toBe(200);
      expect(response.headers[EXPIRES]).toBe(created.expires_at);
    });

    it('says it to a transactional email key given an expiry on /email/v1, and nothing to one without', async () => {
      const f = fixture();
      const expiring = await createEmailKey(f, 'expiring', { expiresInDays: 30 });
      const lasting = await createEmailKey(f, 'lasting');
      expect(lasting.expires_at).toBeNull();
      const [withExpiry, without] = [
        await call(f, expiring.key, 'GET', '/email/v1/messages'),
        await call(f, lasting.key, 'GET', '/email/v1/messages'),
      ];
      expect([withExpiry.statusCode, without.statusCode]).toEqual([200, 200]);
      expect(withExpiry.headers[EXPIRES]).toBe(expiring.expires_at);
      expect(without.headers).not.toHaveProperty(EXPIRES);
    });

    it('says nothing to a user token, nor on a 401 before the credential is known', async () => {
      const f = fixture();
      const { app, workspaceId } = f;
      const responses = [
        await readContext(app, workspaceId, { key: f.member.token }),
        await call(f, f.owner.token, 'GET', `/api/v1/workspaces/${workspaceId}/campaigns`),
        await readContext(app, workspaceId),
        await readContext(app, workspaceId, { key: BRAND_KEY.generate() }),
        await call(f, WORKSPACE_API_KEY.generate(), 'GET', `/api/v1/workspaces/${workspaceId}/campaigns`),
      ];
      expect(responses.map((response) => response.statusCode)).toEqual([200, 200, 401, 401, 401]);
      for (const response of responses) expect(response.headers).not.toHaveProperty(EXPIRES);
    });
  });
});
