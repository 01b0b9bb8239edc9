import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, expect, it, vi } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import { BRAND_KEY_LIFETIME_MS } from '../../src/core/key-lifecycle.js';
import { BRAND_KEY, hashKey } from '../../src/core/secret-keys.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey, revokeBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';

/** Runs one statement on the database through a connection of the test's own, not the app's. */
async function runOnDatabase(database: TestDatabase, statement: string): Promise<void> {
  if (database.config.kind === 'sqlite') {
    const db = new BetterSqlite3(database.config.path);
    try {
      db.exec(statement);
    } finally {
      db.close();
    }
    return;
  }
  const client = new pg.Client({ connectionString: database.config.url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describeEachBackend('Brand read key lookups batched across concurrent reads', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let workspaceId: string;

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database);
    workspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Batch Co' })).id;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  const newKey = (name: string) => createBrandKey(testApp.deps, OPERATOR, { workspaceId, name });

  /**
   * Resolves every token in the same turn of the event loop, as reads arriving together do: each answer is the
   * key's id, or the code of its refusal, or the error.
   */
  async function resolveTogether(tokens: readonly string[]): Promise<unknown[]> {
    const { credentials } = testApp.app.services;
    const answers = await Promise.allSettled(
      tokens.map(async (token) => credentials.resolve({ authorization: `Bearer ${token}` }, 'read')),
    );
    return answers.map((answer) => {
      if (answer.status === 'rejected')
        return answer.reason instanceof AppError ? answer.reason.code : (answer.reason as unknown);
      return answer.value.kind === 'key' ? answer.value.id : answer.value.kind;
    });
  }

  it('answers each read of one batch with its own key, refusing the unknown, expired and revoked ones, in one query', async () => {
    const expired = await newKey('expired');
    testApp.clock.advance(BRAND_KEY_LIFETIME_MS + 1);
    const [first, second, revoked] = [await newKey('first'), await newKey('second'), await newKey('revoked')];
    await revokeBrandKey(testApp.deps, OPERATOR, workspaceId, revoked.id);
    const unknown = BRAND_KEY.generate();
    const lookups = vi.spyOn(testApp.store.keys, 'findByHashes');

    const tokens = [first.key, unknown, expired.key, second.key, revoked.key, first.key];
    expect(await resolveTogether(tokens)).toEqual([
      first.id,
      'invalid_key',
      'key_expired',
      second.id,
      'key_revoked',
      first.id,
    ]);
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(lookups).toHaveBeenCalledWith('brand', tokens.map(hashKey));
  });

  it('fails every read of a batch whose query fails, caches nothing of it, and looks the keys up afresh after', async () => {
    const [first, second] = [await newKey('first'), await newKey('second')];
    const lookups = vi.spyOn(testApp.store.keys, 'findByHashes');
    // A real failure of the real query: the table it reads is not there.
    await runOnDatabase(database, 'alter table keys rename to keys_away');
    let failed: unknown[];
    try {
      failed = await resolveTogether([first.key, BRAND_KEY.generate(), second.key]);
    } finally {
      await runOnDatabase(database, 'alter table keys_away rename to keys');
    }
    // Each caller gets the one error of the one query.
    expect(failed).toHaveLength(3);
    expect(new Set(failed).size).toBe(1);
    expect(failed[0]).toBeInstanceOf(Error);
    expect(String(failed[0])).toMatch(/\bkeys\b/);
    expect(lookups).toHaveBeenCalledTimes(1);

    expect(await resolveTogether([first.key, second.key])).toEqual([first.id, second.id]);
    expect(lookups).toHaveBeenCalledTimes(2);
  });

  it('looks a key up alone when no other read comes with it, at once', async () => {
    const key = await newKey('alone');
    const lookups = vi.spyOn(testApp.store.keys, 'findByHashes');
    expect(await resolveTogether([key.key])).toEqual([key.id]);
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(lookups).toHaveBeenCalledWith('brand', [hashKey(key.key)]);
  });
});
