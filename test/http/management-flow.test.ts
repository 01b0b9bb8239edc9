import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrandContext } from '../../src/core/brand-context.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import type { UserRecord } from '../../src/store/store.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';
import type { CreatedKey } from '../../src/contract/keys.js';

interface KeyView {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  last4: string;
  status: string;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

interface AuditEvent {
  id: string;
  action: string;
  actor: { type: 'user'; id: string | null; email: string | null } | { type: 'operator' };
  target: { type: string; id: string | null };
  details: Record<string, unknown>;
  created_at: string;
}

const EMAIL = 'Owner.Flow@Example.com';
const PASSWORD = 'a long enough password';
const MINUTE_MS = 60_000;

/**
 * One owner's whole journey over HTTP, step by step: each `it` continues where the previous one stopped,
 * so the steps run in order and share what they created.
 */
describeEachBackend('Management API: sign in, workspace, brand, key, read, revoke, audit', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let user: UserRecord;
  let accessToken = '';
  let workspaceId = '';
  let created: CreatedKey | undefined;
  let readAt = '';

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database);
    user = await findOrCreateUser(testApp.deps, EMAIL, PASSWORD);
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  const api = (
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: unknown,
  ): Promise<LightMyRequestResponse> =>
    testApp.app.inject({
      method,
      url,
      headers: {
        ...bearer(accessToken),
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });

  const read = (key: string): Promise<LightMyRequestResponse> =>
    testApp.app.inject({
      method: 'POST',
      url: '/functions/v1/brand-agent',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
    });

  const keyOf = (): CreatedKey => {
    if (!created) throw new Error('no key was created');
    return created;
  };

  it('signs in with email and password and gets a bearer session', async () => {
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/auth/v1/token',
      payload: { email: EMAIL, password: PASSWORD },
    });
    expect(response.statusCode).toBe(200);
    const session = response.json<{ access_token: string; token_type: string; expires_in: number }>();
    expect(session).toMatchObject({ token_type: 'bearer', expires_in: 3600 });
    accessToken = session.access_token;
  });

  it('creates a workspace and makes the caller its owner', async () => {
    testApp.clock.advance(MINUTE_MS);
    const response = await api('POST', '/api/v1/workspaces', { name: 'Acme Coffee' });
    expect(response.statusCode).toBe(201);
    const workspace = response.json<{ id: string; name: string; role: string }>();
    expect(workspace).toMatchObject({ name: 'Acme Coffee', role: 'owner' });
    expect(workspace.id).toMatch(/^ws_[0-9A-Za-z]{20,}$/);
    workspaceId = workspace.id;

    const mine = await api('GET', '/api/v1/workspaces');
    expect(mine.json<{ workspaces: { id: string; role: string }[] }>().workspaces).toEqual([
      expect.objectContaining({ id: workspaceId, role: 'owner' }),
    ]);
  });

  it('puts a complete brand and gets it back', async () => {
    testApp.clock.advance(MINUTE_MS);
    const response = await api('PUT', `/api/v1/workspaces/${workspaceId}/brand`, DEMO_BRAND);
    expect(response.statusCode).toBe(200);
    const brand = response.json<BrandContext>();
    expect(brand).toMatchObject({ workspace_id: workspaceId, name: 'Acme Coffee', version: 2 });
    expect(brand.knowledge).toHaveLength(DEMO_BRAND.knowledge?.length ?? -1);

    const fetched = await api('GET', `/api/v1/workspaces/${workspaceId}/brand`);
    expect(fetched.statusCode).toBe(200);
    expect(fetched.json()).toEqual(brand);
  });

  it('creates a brand read key and shows it once, with no-store caching', async () => {
    testApp.clock.advance(MINUTE_MS);
    const response = await api('POST', `/api/v1/workspaces/${workspaceId}/brand-keys`, {
      name: 'newsletter pipeline',
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    created = response.json<CreatedKey>();
    expect(Object.keys(created).sort()).toEqual(
      ['created_at', 'expires_at', 'id', 'key', 'name', 'prefix'].sort(),
    );
    expect(created.key).toMatch(/^brk_[0-9A-Za-z]{36}$/);
    expect(created.prefix).toBe(created.key.slice(0, 8));
    expect(created.name).toBe('newsletter pipeline');
  });

  it('reads the brand that was put through the read operation with the new key', async () => {
    testApp.clock.advance(MINUTE_MS);
    readAt = new Date(testApp.clock.now()).toISOString();
    const response = await read(keyOf().key);
    expect(response.statusCode).toBe(200);
    const brand = response.json<BrandContext>();
    const stored = await api('GET', `/api/v1/workspaces/${workspaceId}/brand`);
    expect(brand).toEqual(stored.json());
    expect(brand).toMatchObject({
      workspace_id: workspaceId,
      name: DEMO_BRAND.name,
      voice: DEMO_BRAND.voice,
      social: DEMO_BRAND.social,
      preferences: DEMO_BRAND.preferences,
    });
    expect(brand.colors.primary).toBe(DEMO_BRAND.colors?.primary);
    expect(brand.knowledge.map((entry) => entry.title)).toEqual(
      DEMO_BRAND.knowledge?.map((entry) => entry.title),
    );
  });

  it('lists the key as active, last used at the read, created by the user, without its secret', async () => {
    const { id, key } = keyOf();
    const response = await api('GET', `/api/v1/workspaces/${workspaceId}/brand-keys`);
    expect(response.statusCode).toBe(200);
    expect(response.json<{ keys: KeyView[] }>().keys).toEqual([
      expect.objectContaining({
        id,
        status: 'active',
        created_by: user.id,
        last_used_at: readAt,
        revoked_at: null,
        last4: key.slice(-4),
      }),
    ]);
    expect(response.body).not.toContain(key);
    expect(response.body).not.toContain(key.slice(4, 34));
  });

  it('revokes the key, and revoking it again is an idempotent 200', async () => {
    testApp.clock.advance(MINUTE_MS);
    const revokedAt = new Date(testApp.clock.now()).toISOString();
    const url = `/api/v1/workspaces/${workspaceId}/brand-keys/${keyOf().id}`;
    const first = await api('DELETE', url);
    expect(first.statusCode).toBe(200);
    expect(first.json<KeyView>()).toMatchObject({ status: 'revoked', revoked_at: revokedAt });

    testApp.clock.advance(MINUTE_MS);
    const again = await api('DELETE', url);
    expect(again.statusCode).toBe(200);
    expect(again.json<KeyView>()).toMatchObject({ status: 'revoked', revoked_at: revokedAt });
  });

  it('answers the read operation with 401 key_revoked at once', async () => {
    const response = await read(keyOf().key);
    expect(response.statusCode).toBe(401);
    expect(response.json<{ code: string }>().code).toBe('key_revoked');
    expect(response.body).not.toContain(keyOf().key);
  });

  it('lists the key as revoked, still created by the user and last used at the read, never its secret', async () => {
    const { id, key } = keyOf();
    const response = await api('GET', `/api/v1/workspaces/${workspaceId}/brand-keys`);
    const [listed] = response.json<{ keys: KeyView[] }>().keys;
    expect(listed).toMatchObject({ id, status: 'revoked', created_by: user.id, last_used_at: readAt });
    expect(listed?.revoked_at).not.toBeNull();
    expect(response.body).not.toContain(key);
    expect(response.body).not.toContain(key.slice(4, 34));
    expect(response.body).not.toMatch(/[0-9a-f]{64}/);
  });

  it('shows every step in the audit log, newest first, with the actor and never a key', async () => {
    const { id, key } = keyOf();
    const response = await api('GET', `/api/v1/workspaces/${workspaceId}/audit-log`);
    expect(response.statusCode).toBe(200);
    const { events, next_cursor } = response.json<{ events: AuditEvent[]; next_cursor: string | null }>();
    expect(next_cursor).toBeNull();
    // the second, idempotent revoke changed nothing and so recorded nothing
    expect(events.map((event) => event.action)).toEqual([
      'brand_key.revoked',
      'brand_key.created',
      'brand.updated',
      'workspace.created',
    ]);
    for (const event of events) expect(event.actor).toEqual({ type: 'user', id: user.id, email: user.email });
    expect(user.email).toBe(EMAIL.toLowerCase());
    expect(events.map((event) => event.target)).toEqual([
      { type: 'brand_key', id },
      { type: 'brand_key', id },
      { type: 'brand', id: workspaceId },
      { type: 'workspace', id: workspaceId },
    ]);
    const times = events.map((event) => event.created_at);
    expect([...times].sort().reverse()).toEqual(times);

    expect(response.body).not.toContain(key);
    expect(response.body).not.toContain(key.slice(4, 34));
    // The only brk_ text is the public 8-character prefix that listings show too (docs/keys.md "Brand read keys").
    const brkMentions = response.body.match(/brk_[0-9A-Za-z]*/g) ?? [];
    expect(brkMentions.every((mention) => mention === keyOf().prefix)).toBe(true);
    expect(response.body).not.toContain(accessToken);
  });
});
