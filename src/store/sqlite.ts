import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  type DialectAdapter,
  Kysely,
  type MigrationLockOptions,
  SqliteAdapter,
  SqliteDialect,
  sql,
} from 'kysely';
import { ChangeHub } from './change-feed.js';
import { DatabaseUnavailableError, describeError } from './errors.js';
import { KyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/** How often the server looks for commits made by other processes (the CLI): well inside the 1 s promise. */
const DATA_VERSION_POLL_MS = 200;

/**
 * Kysely's SQLite adapter migrates outside a transaction and takes no lock, so two processes opening a new
 * file at once (the server and a CLI command) could both apply the first migration. SQLite does have
 * transactional DDL: migrating in one transaction whose first statement writes the lock row makes SQLite
 * serialize the processes; the second waits (busy_timeout), then finds the migrations applied.
 */
class MigrationLockingSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the signature Kysely declares
  override async acquireMigrationLock(db: Kysely<any>, options: MigrationLockOptions): Promise<void> {
    await db
      .updateTable(options.lockTable)
      .set({ is_locked: 1 })
      .where('id', '=', options.lockRowId)
      .execute();
  }
}

class MigrationLockingSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new MigrationLockingSqliteAdapter();
  }
}

function openFile(path: string): BetterSqlite3.Database {
  try {
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const database = new BetterSqlite3(path);
    database.pragma('journal_mode = WAL');
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    // The CLI and the server share the file: wait for the other's write instead of failing.
    database.pragma('busy_timeout = 5000');
    return database;
  } catch (error) {
    throw new DatabaseUnavailableError(`cannot open SQLite database at ${path}: ${describeError(error)}`);
  }
}

/**
 * `PRAGMA data_version` changes on this connection only when another connection commits, so polling it
 * notices every write the CLI makes while the server runs, at the cost of a few microseconds per poll.
 */
function watchDataVersion(database: BetterSqlite3.Database) {
  return (hub: ChangeHub) => {
    let seen = database.pragma('data_version', { simple: true });
    const timer = setInterval(() => {
      const current = database.pragma('data_version', { simple: true });
      if (current === seen) return;
      seen = current;
      hub.emit({ workspaceId: null });
    }, DATA_VERSION_POLL_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
    };
  };
}

export async function openSqliteStore(path: string): Promise<Store> {
  const database = openFile(path);
  const db = new Kysely<Database>({ dialect: new MigrationLockingSqliteDialect({ database }) });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw new DatabaseUnavailableError(`cannot migrate SQLite database at ${path}: ${describeError(error)}`);
  }
  return new KyselyStore(db, {
    kind: 'sqlite',
    hub: new ChangeHub(watchDataVersion(database)),
    announce: () => Promise.resolve(),
    ping: async (conn) => {
      await sql`select 1`.execute(conn);
    },
    close: () => Promise.resolve(),
  });
}
