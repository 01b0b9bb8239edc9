import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { emptyBrand } from '../../src/core/brand-context.js';
import { KeySigner } from '../../src/core/key-signature.js';
import { BRAND_KEY, hashKey } from '../../src/core/secret-keys.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open-store.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '#test/support/databases.js';
import { PATH } from '#test/support/fixtures/brand-agent.js';

/** The migration before the signing secret left the database. */
const BEFORE = '0008_revoked_keys';

/**
 * A database of a version that kept the key-signing secret in `settings`, brought up to date: the secret is
 * deleted, keys it signed keep working (looked up by their rows), and no new key can be made with it
 * (docs/keys.md "Brand read keys").
 */
describeEachBackend('Upgrading a database that kept the key-signing secret', (backend) => {
  let database: TestDatabase;
  let app: TestApp;
  let base: string;
  const oldSecret = randomBytes(32);
  const workspaceId = 'ws_upgraded0000000000000000';
  let oldKey: string;

  beforeAll(async () => {
    database = await backend.create();
    const { config } = database;
    const db = new Kysely<Record<string, never>>({
      dialect:
        config.kind === 'sqlite'
          ? new SqliteDialect({ database: new BetterSqlite3(config.path) })
          : new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url, max: 1 }) }),
    });
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(BEFORE);
      if (error !== undefined) throw error instanceof Error ? error : new Error(JSON.stringify(error));
      await (db as unknown as Kysely<{ settings: { name: string; value: string } }>)
        .insertInto('settings')
        .values({ name: 'key_signing_secret', value: oldSecret.toString('base64') })
        .execute();
    } finally {
      await db.destroy();
    }

    const store = await openStore(config);
    try {
      const now = new Date().toISOString();
      await store.workspaces.create({ id: workspaceId, name: 'Upgraded Co', createdAt: now }, emptyBrand());
      // A key the old version made: signed with the secret it kept, and stored.
      const made = new KeySigner(BRAND_KEY, 'bk', oldSecret).issue(workspaceId, Date.now() + 30 * DAY_MS);
      oldKey = made.key;
      await store.keys.create('brand', {
        id: made.id,
        workspaceId,
        name: 'made before the upgrade',
        keyHash: hashKey(made.key),
        ...BRAND_KEY.hint(made.key),
        createdBy: null,
        createdAt: now,
        expiresAt: new Date(Date.now() + 30 * DAY_MS).toISOString(),
        revokedAt: null,
        lastUsedAt: null,
      });
    } finally {
      await store.close();
    }
    app = await startTestApp(database, { logLevel: 'info' });
    base = `http://127.0.0.1:${String(await listenOnLoopback(app.app))}`;
  });

  afterAll(async () => {
    await app.close();
    await database.drop();
  });

  const read = async (key: string) => {
    const response = await fetch(`${base}${PATH}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
    });
    return { status: response.status, body: (await response.json()) as { code?: string } };
  };

  it('deletes the secret from the database', async () => {
    const { settings } = await snapshotTables(database.config);
    expect((settings as { name: string }[]).map(({ name }) => name)).not.toContain('key_signing_secret');
  });

  it('keeps serving keys the old secret signed, which have rows', async () => {
    expect((await read(oldKey)).status).toBe(200);
  });

  it('refuses a key made with the old secret after the upgrade, which has none, with invalid_key', async () => {
    const forged = new KeySigner(BRAND_KEY, 'bk', oldSecret).issue(workspaceId, Date.now() + 30 * DAY_MS);
    expect(await read(forged.key)).toMatchObject({ status: 401, body: { code: 'invalid_key' } });
  });
});
