import { expect, it } from 'vitest';
import { BRAND_KEY_LIFETIME_MS } from '../../src/core/key-lifecycle.js';
import { hashKey, WORKSPACE_API_KEY } from '../../src/core/secret-keys.js';
import type { CreatedKey } from '../../src/contract/keys.js';
import { startTestApp } from '../support/app.js';
import { describeEachBackend, snapshotTables } from '../support/databases.js';
import { call, type Fixture, isoNow, outcome, useFixture } from '../support/http-fixture.js';
import { campaignsApi, MINUTE_MS } from '../support/fixtures/campaigns.js';

interface KeyView {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  last4: string;
  status: 'active' | 'expired' | 'revoked';
  created_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

describeEachBackend('Workspace API keys: /api/v1/workspaces/{id}/api-keys', (backend) => {
  const fixture = useFixture(backend);

  const keysUrl = (f: Fixture) => `/api/v1/workspaces/${f.workspaceId}/api-keys`;

  async function create(f: Fixture, name: string, token = f.owner.token): Promise<CreatedKey> {
    const response = await call(f, token, 'POST', keysUrl(f), { body: { name } });
    expect(response.statusCode).toBe(201);
    return response.json<CreatedKey>();
  }

  async function list(f: Fixture, kind: 'api-keys' | 'brand-keys' = 'api-keys'): Promise<KeyView[]> {
    const response = await call(f, f.owner.token, 'GET', `/api/v1/workspaces/${f.workspaceId}/${kind}`);
    expect(response.statusCode).toBe(200);
    return response.json<{ keys: KeyView[] }>().keys;
  }

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

    const listed = (await list(f)).find((key) => key.id === created.id);
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
    });
  });

  it('never lists a key, its secret part or its hash', async () => {
    const f = fixture();
    const created = await create(f, 'listing');
    const response = await call(f, f.owner.token, 'GET', keysUrl(f));
    expect(response.body).toContain(created.id);
    for (const secret of [created.key, created.key.slice(4, 34), hashKey(created.key)])
      expect(response.body).not.toContain(secret);
    expect(response.body).not.toMatch(/[0-9a-f]{64}/);
  });

  it('refuses an empty name with 400 naming the field, and creates nothing', async () => {
    const f = fixture();
    const before = await snapshotTables(f.database.config);
    const responses = [
      await call(f, f.owner.token, 'POST', keysUrl(f), { body: { name: ' ' } }),
      await call(f, f.owner.token, 'POST', keysUrl(f), { body: {} }),
      await call(f, f.owner.token, 'POST', keysUrl(f), { body: { name: 'x', scopes: ['brand.write'] } }),
    ];
    expect(responses.map(outcome)).toEqual(Array(3).fill('400 invalid_request'));
    expect(
      responses.map((r) => r.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)),
    ).toEqual([['name'], ['name'], ['scopes']]);
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });

  it('shows last_used_at null until the key is used, then the time of its latest use, also after a restart', async () => {
    const f = fixture();
    const created = await create(f, 'usage');
    expect((await list(f)).find((key) => key.id === created.id)?.last_used_at).toBeNull();

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
    expect((await list(f)).find((key) => key.id === created.id)?.last_used_at).toBe(usedAt);
  });

  it('does not count a refused request with a revoked key as a use', async () => {
    const f = fixture();
    const created = await create(f, 'revoked use');
    await campaignsApi(f, created.key).list();
    const usedAt = isoNow(f);
    await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${created.id}`);
    f.clock.advance(MINUTE_MS);
    expect(outcome(await campaignsApi(f, created.key).list())).toBe('401 api_key_revoked');
    expect((await list(f)).find((key) => key.id === created.id)?.last_used_at).toBe(usedAt);
  });

  it('revokes a key at once and idempotently: a second revoke keeps the first time and changes nothing', async () => {
    const f = fixture();
    const created = await create(f, 'to revoke');
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
    expect((await list(f)).find((key) => key.id === created.id)).toMatchObject({
      status: 'revoked',
      revoked_at: revokedAt,
    });
  });

  it('answers 404 api_key_not_found to revoking an unknown key, a brand key, or a key of another workspace', async () => {
    const f = fixture();
    const brandKeyId = (await list(f, 'brand-keys'))[0]?.id ?? 'bk_missing';
    const theirs = await call(
      f,
      f.otherOwner.token,
      'POST',
      `/api/v1/workspaces/${f.otherWorkspaceId}/api-keys`,
      {
        body: { name: 'theirs' },
      },
    );
    const before = await snapshotTables(f.database.config);
    const responses = [
      await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/ak_DoesNotExist`),
      await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${brandKeyId}`),
      await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${theirs.json<CreatedKey>().id}`),
    ];
    expect(responses.map(outcome)).toEqual(Array(3).fill('404 api_key_not_found'));
    // and the other way round: an API key is no brand key
    const crossed = await call(
      f,
      f.owner.token,
      'DELETE',
      `/api/v1/workspaces/${f.workspaceId}/brand-keys/${f.apiKeyId}`,
    );
    expect(outcome(crossed)).toBe('404 key_not_found');
    expect(await snapshotTables(f.database.config)).toEqual(before);
    expect((await campaignsApi(f, f.apiKey).list()).statusCode).toBe(200);
  });

  it('lets a member list the keys read-only (never a secret) and answers 403 insufficient_role to their writes', async () => {
    const f = fixture();
    const listed = await call(f, f.member.token, 'GET', keysUrl(f));
    expect(listed.statusCode).toBe(200);
    expect(listed.json<{ keys: { id: string }[] }>().keys.map((key) => key.id)).toContain(f.apiKeyId);
    expect(listed.body).not.toContain(f.apiKey);
    const before = await snapshotTables(f.database.config);
    const writes = [
      await call(f, f.member.token, 'POST', keysUrl(f), { body: { name: 'member key' } }),
      await call(f, f.member.token, 'DELETE', `${keysUrl(f)}/${f.apiKeyId}`),
    ];
    expect(writes.map(outcome)).toEqual(Array(2).fill('403 insufficient_role'));
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });

  it('keeps the two kinds apart: brand-keys lists no API key and api-keys no brand key', async () => {
    const f = fixture();
    const apiKey = await create(f, 'an API key');
    const brandKey = (
      await call(f, f.owner.token, 'POST', `/api/v1/workspaces/${f.workspaceId}/brand-keys`, {
        body: { name: 'a brand key' },
      })
    ).json<CreatedKey>();
    expect(brandKey.key).toMatch(/^brk_/);

    const apiKeys = await list(f, 'api-keys');
    const brandKeys = await list(f, 'brand-keys');

    expect(apiKeys.map((key) => key.id)).toContain(apiKey.id);
    expect(brandKeys.map((key) => key.id)).toContain(brandKey.id);
    for (const key of apiKeys) expect(key.prefix).toMatch(/^wsk_/);
    for (const key of brandKeys) expect(key.prefix).toMatch(/^brk_/);
    expect(apiKeys.map((key) => key.id)).not.toContain(brandKey.id);
    expect(brandKeys.map((key) => key.id)).not.toContain(apiKey.id);
  });

  it('lists a key as expired 90 days after its creation', async () => {
    const f = fixture();
    const created = await create(f, 'expiring');
    f.clock.advance(BRAND_KEY_LIFETIME_MS);
    try {
      const { access_token: token } = await f.tokens.issueSession(f.owner.user);
      const response = await call(f, token, 'GET', keysUrl(f));
      expect(response.json<{ keys: KeyView[] }>().keys.find((key) => key.id === created.id)?.status).toBe(
        'expired',
      );
    } finally {
      f.clock.advance(-BRAND_KEY_LIFETIME_MS);
    }
  });
});
