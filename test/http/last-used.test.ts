import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey, revokeBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import type { UserRecord } from '../../src/store/store.js';
import { startTestApp, type TestApp, type TestAppOptions } from '#test/support/app.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '#test/support/databases.js';
import { addUser, bearer } from '#test/support/users.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { issueSession } from '../../src/services/auth/tokens.js';

interface Listed {
  id: string;
  last_used_at: string | null;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

describeEachBackend('last_used_at of brand read keys and personal access tokens', (backend) => {
  let database: TestDatabase;
  /** The app most tests read through; tests that restart or flush start apps of their own beside it. */
  let base: TestApp;
  let workspaceId: string;
  let owner: UserRecord;
  const started: TestApp[] = [];

  async function start(options: TestAppOptions = {}): Promise<TestApp> {
    const testApp = await startTestApp(database, options);
    started.push(testApp);
    return testApp;
  }

  async function close(testApp: TestApp): Promise<void> {
    started.splice(started.indexOf(testApp), 1);
    await testApp.close();
  }

  async function newKey(name: string): Promise<{ id: string; key: string }> {
    return createBrandKey(base.deps, OPERATOR, { workspaceId, name });
  }

  /** The listing an owner sees through `testApp`'s API. */
  async function listedKeys(testApp: TestApp): Promise<Listed[]> {
    const { access_token: token } = await issueSession(testApp.deps, owner);
    const response = await testApp.app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${workspaceId}/brand-keys`,
      headers: bearer(token),
    });
    expect(response.statusCode).toBe(200);
    return response.json<{ keys: Listed[] }>().keys;
  }

  async function listedLastUse(testApp: TestApp, keyId: string): Promise<string | null | undefined> {
    return (await listedKeys(testApp)).find((key) => key.id === keyId)?.last_used_at;
  }

  /** What the database holds, read through the store (no pending stamps). */
  async function storedLastUse(testApp: TestApp, keyId: string): Promise<string | null | undefined> {
    return (await testApp.store.keys.list('brand', workspaceId)).find((key) => key.id === keyId)?.lastUsedAt;
  }

  async function read(testApp: TestApp, key: string): Promise<void> {
    const response = await readContext(testApp.app, workspaceId, { key });
    expect(response.statusCode).toBe(200);
  }

  beforeAll(async () => {
    database = await backend.create();
    base = await start();
    workspaceId = (await createWorkspace(base.deps, OPERATOR, { name: 'Usage Co' })).id;
    owner = (await addUser(base, { workspaceId, role: 'owner' })).user;
  });
  afterAll(async () => {
    for (const testApp of [...started].reverse()) await testApp.close();
    await database.drop();
  });

  it('shows the time of the latest read in the key listing at once, and null for an unused key', async () => {
    const used = await newKey('used');
    const unused = await newKey('unused');
    await read(base, used.key);
    base.clock.advance(5_000);
    const lastRead = base.clock.now();
    await read(base, used.key);
    base.clock.advance(10_000);

    const keys = await listedKeys(base);
    expect(keys.find((key) => key.id === used.id)?.last_used_at).toBe(iso(lastRead));
    expect(keys.find((key) => key.id === unused.id)?.last_used_at).toBeNull();
    // exact here; the promise to users is 60 seconds
    const listed = Date.parse(keys.find((key) => key.id === used.id)?.last_used_at ?? '');
    expect(Math.abs(base.clock.now() - listed)).toBeLessThanOrEqual(60_000);
  });

  it('does not count an attempt with a revoked key as a use', async () => {
    const key = await newKey('revoked');
    await read(base, key.key);
    const usedAt = iso(base.clock.now());
    await revokeBrandKey(base.deps, OPERATOR, workspaceId, key.id);
    base.clock.advance(30_000);
    expect((await readContext(base.app, workspaceId, { key: key.key })).statusCode).toBe(401);
    expect(await listedLastUse(base, key.id)).toBe(usedAt);
  });

  it('writes the stamp to the database on the flush interval, with no further request', async () => {
    const app = await start({ usageFlushMs: 50 });
    const key = await newKey('flushed');
    app.clock.advance(60_000);
    const readAt = app.clock.now();
    await read(app, key.key);
    await vi.waitFor(
      async () => {
        expect(await storedLastUse(app, key.id)).toBe(iso(readAt));
      },
      { timeout: 5_000, interval: 25 },
    );
    // and another node (here: the base app) lists it from the database
    expect(await listedLastUse(base, key.id)).toBe(iso(readAt));
    await close(app);
  });

  it('keeps last_used_at across a restart: closing the app writes what is pending', async () => {
    const first = await start();
    const key = await newKey('restart');
    first.clock.advance(7 * 60_000);
    const readAt = first.clock.now();
    await read(first, key.key);
    expect(await storedLastUse(first, key.id)).toBeNull();
    await close(first);

    const second = await start();
    expect(await storedLastUse(second, key.id)).toBe(iso(readAt));
    expect(await listedLastUse(second, key.id)).toBe(iso(readAt));
    await close(second);
  });

  it('records the last use of personal access tokens too, and writes it on close', async () => {
    const app = await start();
    const { access_token: session } = await issueSession(app.deps, owner);
    const created = await app.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: bearer(session),
      payload: { name: 'mcp', expires_in_days: 30 },
    });
    expect(created.statusCode).toBe(201);
    const pat = created.json<{ id: string; token: string; last_used_at: string | null }>();
    expect(pat.last_used_at).toBeNull();

    app.clock.advance(3_000);
    expect(
      (await app.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: bearer(pat.token) }))
        .statusCode,
    ).toBe(200);
    app.clock.advance(4_000);
    const readAt = app.clock.now();
    expect((await readContext(app.app, workspaceId, { key: pat.token })).statusCode).toBe(200);

    const listing = await app.app.inject({ method: 'GET', url: '/api/v1/tokens', headers: bearer(session) });
    const listed = listing.json<{ tokens: Listed[] }>().tokens.find((token) => token.id === pat.id);
    expect(listed?.last_used_at).toBe(iso(readAt));
    const stored = async () =>
      (await base.store.tokens.list(owner.id)).find((token) => token.id === pat.id)?.lastUsedAt;
    expect(await stored()).toBeNull();

    await close(app);
    expect(await stored()).toBe(iso(readAt));
  });

  it('writes nothing to the database per request: 20 reads leave the key’s row as it was until the flush', async () => {
    const app = await start();
    const key = await newKey('hot path');
    const rowOf = async () => {
      const rows = (await snapshotTables(database.config)).keys as { id: string }[];
      return rows.find((row) => row.id === key.id);
    };
    const before = await rowOf();
    expect(before).toMatchObject({ id: key.id, last_used_at: null });

    const touch = vi.spyOn(app.store.keys, 'touch');
    let lastRead = 0;
    for (let i = 0; i < 20; i++) {
      app.clock.advance(1_000);
      lastRead = app.clock.now();
      await read(app, key.key);
    }
    expect(touch).not.toHaveBeenCalled();
    expect(await rowOf()).toEqual(before);
    expect(await listedLastUse(app, key.id)).toBe(iso(lastRead));

    await close(app);
    expect(touch).toHaveBeenCalledTimes(1);
    expect(touch.mock.calls[0]?.[0]).toEqual([{ id: key.id, usedAt: iso(lastRead) }]);
    expect(await storedLastUse(base, key.id)).toBe(iso(lastRead));
    const after = await rowOf();
    expect(after).toBeDefined();
    expect(after).not.toEqual(before);
  });
});
