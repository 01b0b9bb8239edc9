import BetterSqlite3 from 'better-sqlite3';
import { Kysely, type Migration, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeError } from '../../src/store/errors.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import { openStore } from '../../src/store/open-store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';

/** The migration that records who created each webhook endpoint, and attributes the endpoints made before it. */
const CREATORS = '0010_credential_creators';

/** A Kysely of the test database without the service's schema types: the tables as an older release left them. */
function rawDatabase(database: TestDatabase): Kysely<Record<string, Record<string, unknown>>> {
  const { config } = database;
  if (config.kind === 'postgres')
    return new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url }) }),
    });
  const sqlite = new BetterSqlite3(config.path);
  sqlite.pragma('foreign_keys = ON');
  return new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
}

/** Applies the migrations before CREATORS, as a database of the release before it has them. */
async function migrateToBefore(db: Kysely<Record<string, Record<string, unknown>>>): Promise<void> {
  const all = await migrationProvider.getMigrations();
  const before = Object.fromEntries(Object.entries(all).filter(([name]) => name < CREATORS)) as Record<
    string,
    Migration
  >;
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(before) },
  }).migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(describeError(error));
}

describeEachBackend('Migrating webhook endpoints to recorded creators (0010)', (backend) => {
  let database: TestDatabase;
  const at = '2026-11-20T10:00:00.000Z';

  beforeAll(async () => {
    database = await backend.create();
    const db = rawDatabase(database);
    try {
      await migrateToBefore(db);
      await db
        .insertInto('workspaces')
        .values([
          { id: 'ws_a', name: 'A', created_at: at },
          { id: 'ws_b', name: 'B', created_at: at },
        ])
        .execute();
      await db
        .insertInto('users')
        .values(['usr_alice', 'usr_bob'].map((id) => ({ id, email: `${id}@example.com`, created_at: at })))
        .execute();
      const webhook = (id: string) => ({
        id,
        workspace_id: 'ws_a',
        url: 'https://hooks.example.com/x',
        events: '["*"]',
        secret: 'sealed',
        created_at: at,
        updated_at: at,
      });
      await db
        .insertInto('webhooks')
        .values(['wh_alice', 'wh_operator', 'wh_gone', 'wh_unlogged'].map(webhook))
        .execute();
      const audit = (
        id: string,
        entry: {
          workspace: string;
          actor: 'user' | 'operator';
          actorId: string | null;
          action: string;
          target: string;
        },
      ) => ({
        id,
        workspace_id: entry.workspace,
        actor_type: entry.actor,
        actor_id: entry.actorId,
        actor_email: null,
        action: entry.action,
        target_type: 'webhook',
        target_id: entry.target,
        details: '{}',
        created_at: at,
      });
      await db
        .insertInto('audit_events')
        .values([
          // Another workspace's entry naming the same id, and a later change by someone else, are not the creation.
          audit('ae_1', {
            workspace: 'ws_b',
            actor: 'user',
            actorId: 'usr_bob',
            action: 'webhook.created',
            target: 'wh_alice',
          }),
          audit('ae_2', {
            workspace: 'ws_a',
            actor: 'user',
            actorId: 'usr_alice',
            action: 'webhook.created',
            target: 'wh_alice',
          }),
          audit('ae_3', {
            workspace: 'ws_a',
            actor: 'user',
            actorId: 'usr_bob',
            action: 'webhook.updated',
            target: 'wh_alice',
          }),
          audit('ae_4', {
            workspace: 'ws_a',
            actor: 'operator',
            actorId: null,
            action: 'webhook.created',
            target: 'wh_operator',
          }),
          // An account deleted since: its id cannot be a creator any more.
          audit('ae_5', {
            workspace: 'ws_a',
            actor: 'user',
            actorId: 'usr_deleted',
            action: 'webhook.created',
            target: 'wh_gone',
          }),
        ])
        .execute();
    } finally {
      await db.destroy();
    }
  });

  afterAll(async () => {
    await database.drop();
  });

  it('attributes each endpoint to the user its creation was logged for, and leaves the rest unattributed', async () => {
    const store = await openStore(database.config);
    try {
      const creators = Object.fromEntries(
        (await store.webhooks.list('ws_a')).map((webhook) => [webhook.id, webhook.createdBy]),
      );
      expect(creators).toEqual({
        wh_alice: 'usr_alice',
        wh_operator: null,
        wh_gone: null,
        wh_unlogged: null,
      });
    } finally {
      await store.close();
    }
  });
});
