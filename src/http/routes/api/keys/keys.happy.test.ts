import { expect, it } from 'vitest';
import { BRAND_KEY_LIFETIME_MS } from '../../../../core/key-lifecycle.js';
import { WORKSPACE_API_KEY } from '../../../../core/secret-keys.js';
import { startTestApp } from '#test/support/app.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { call, isoNow, outcome, useFixture } from '#test/support/http-fixture.js';
import { campaignsApi, MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { type CreatedKey, createKey, type KeyView, keysUrl, listKeys } from '#test/support/fixtures/keys.js';
import { issueSession } from '../../../../services/auth/tokens.js';

describeEachBackend(
  'Workspace keys (/api/v1/workspaces/{id}/api-keys and brand-keys): the happy paths',
  (backend) => {
    const fixture = useFixture(backend);

    it('creates a key with 201, shown once in the wsk_ shape, not cached, valid for 90 days', async () => {
      const f = fixture();
      f.clock.advance(MINUTE_MS);
      const response = await call(f, f.admin.token, 'POST', keysUrl(f), {
        body: { name: '  newsletter pipeline ' },
      });

      expect(response.statusCode).toBe(201);
      expect(response.headers['cache-control']).toBe('no-store');
      const created = response.json<CreatedKey>();
      expect(created).toEqual({
        id: expect.stringMatching(/^ak_/) as string,
        name: 'newsletter pipeline',
        key: expect.stringMatching(/^wsk_[0-9A-Za-z]{36}$/) as string,
        prefix: created.key.slice(0, 8),
        created_at: isoNow(f),
        expires_at: new Date(f.clock.now() + BRAND_KEY_LIFETIME_MS).toISOString(),
      });
      expect(WORKSPACE_API_KEY.formatProblem(created.key)).toBeUndefined();
      // It works at once, on its own workspace's campaigns.
      expect((await campaignsApi(f, created.key).list()).statusCode).toBe(200);

      const listed = (await listKeys(f)).find((key) => key.id === created.id);
      expect(listed).toEqual({
        id: created.id,
        workspace_id: f.workspaceId,
        name: 'newsletter pipeline',
        prefix: created.prefix,
        last4: created.key.slice(-4),
        status: 'active',
        created_by: f.admin.user.id,
        created_at: created.created_at,
        expires_at: created.expires_at,
        revoked_at: null,
        last_used_at: isoNow(f),
        creator: { user_id: f.admin.user.id, email: f.admin.user.email, former_member: false },
      });
    });

    it('shows last_used_at null until the key is used, then the time of its latest use, also after a restart', async () => {
      const f = fixture();
      const created = await createKey(f, 'usage');
      expect((await listKeys(f)).find((key) => key.id === created.id)?.last_used_at).toBeNull();

      // A second node on the same database serves the key; closing it writes what it has pending.
      const node = await startTestApp(f.database, { usageFlushMs: 24 * 60 * MINUTE_MS });
      node.clock.advance(5 * MINUTE_MS);
      const usedAt = new Date(node.clock.now()).toISOString();
      let used;
      try {
        used = await node.app.inject({
          method: 'GET',
          url: `/api/v1/workspaces/${f.workspaceId}/campaigns`,
          headers: { authorization: `Bearer ${created.key}` },
        });
        const stored = await f.store.keys.list('api', f.workspaceId);
        expect(stored.find((key) => key.id === created.id)?.lastUsedAt).toBeNull();
      } finally {
        await node.close();
      }
      expect(used.statusCode).toBe(200);
      expect(
        (await f.store.keys.list('api', f.workspaceId)).find((key) => key.id === created.id)?.lastUsedAt,
      ).toBe(usedAt);
      expect((await listKeys(f)).find((key) => key.id === created.id)?.last_used_at).toBe(usedAt);
    });

    it('revokes a key at once and idempotently: a second revoke keeps the first time and changes nothing', async () => {
      const f = fixture();
      const created = await createKey(f, 'to revoke');
      f.clock.advance(MINUTE_MS);
      const revokedAt = isoNow(f);

      const first = await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${created.id}`);

      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ id: created.id, status: 'revoked', revoked_at: revokedAt });
      expect(outcome(await campaignsApi(f, created.key).list())).toBe('401 api_key_revoked');

      f.clock.advance(MINUTE_MS);
      const before = await snapshotTables(f.database.config);
      const second = await call(f, f.admin.token, 'DELETE', `${keysUrl(f)}/${created.id}`);
      expect(second.statusCode).toBe(200);
      expect(second.json()).toEqual(first.json());
      expect(await snapshotTables(f.database.config)).toEqual(before);
      expect((await listKeys(f)).find((key) => key.id === created.id)).toMatchObject({
        status: 'revoked',
        revoked_at: revokedAt,
      });
    });

    it('keeps the two kinds apart: brand-keys lists no API key and api-keys no brand key', async () => {
      const f = fixture();
      const apiKey = await createKey(f, 'an API key');
      const brandKey = (
        await call(f, f.owner.token, 'POST', `/api/v1/workspaces/${f.workspaceId}/brand-keys`, {
          body: { name: 'a brand key' },
        })
      ).json<CreatedKey>();
      expect(brandKey.key).toMatch(/^brk_/);

      const apiKeys = await listKeys(f, 'api-keys');
      const brandKeys = await listKeys(f, 'brand-keys');

      expect(apiKeys.map((key) => key.id)).toContain(apiKey.id);
      expect(brandKeys.map((key) => key.id)).toContain(brandKey.id);
      for (const key of apiKeys) expect(key.prefix).toMatch(/^wsk_/);
      for (const key of brandKeys) expect(key.prefix).toMatch(/^brk_/);
      expect(apiKeys.map((key) => key.id)).not.toContain(brandKey.id);
      expect(brandKeys.map((key) => key.id)).not.toContain(apiKey.id);
    });

    it('lists a key as expired 90 days after its creation', async () => {
      const f = fixture();
      const created = await createKey(f, 'expiring');
      f.clock.advance(BRAND_KEY_LIFETIME_MS);
      try {
        const { access_token: token } = await issueSession(f.deps, f.owner.user);
        const response = await call(f, token, 'GET', keysUrl(f));
        expect(response.json<{ keys: KeyView[] }>().keys.find((key) => key.id === created.id)?.status).toBe(
          'expired',
        );
      } finally {
        f.clock.advance(-BRAND_KEY_LIFETIME_MS);
      }
    });
  },
);
