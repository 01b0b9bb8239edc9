import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
} from 'kysely';
import { LRUCache } from 'lru-cache';
import { ChangeHub } from './change-feed.js';
import { DatabaseUnavailableError, describeError, StoreError } from './errors.js';
import { kyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

/** How often the server looks for commits made by other processes (the CLI): well inside the 1 s promise. */
const DATA_VERSION_POLL_MS = 200;

/**
 * Kysely's SQLite adapter migrates outside a transaction, so two processes opening a new file at once (the
 * server and a CLI command) could both apply the first migration. SQLite has transactional DDL: migrating
 * in one transaction that begins IMMEDIATE (below) makes the second process wait, then find it applied.
 */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

/** How long a write waits for another process's write lock (the CLI and the server share the file). */
const BUSY_TIMEOUT_MS = 5000;

/** The driver's errors that no request can fix, as the store reports them; others pass unchanged. */
function fromSqliteError(error: unknown): unknown {
  if (!(error instanceof BetterSqlite3.SqliteError)) return error;
  if (error.code === 'SQLITE_FULL') return new StoreError('storage_full', 'no space left on the disk', error);
  if (error.code.startsWith('SQLITE_BUSY')) {
    const seconds = String(BUSY_TIMEOUT_MS / 1000);
    return new StoreError('service_unavailable', `another process kept it locked for ${seconds} s`, error);
  }
  return error;
}

/**
 * Prepared statements kept per SQL text. Kysely's driver prepares every query afresh, which cost ~15 % of a
 * key lookup (docs/operations.md "Operations"); the service's queries are a few hundred distinct texts at most, so a
 * bounded cache holds all of the hot ones.
 */
const CACHED_STATEMENTS = 500;

/**
 * Runs queries on cached prepared statements, as Kysely's own connection does but without re-preparing, and
 * translates errors (fromSqliteError). `all` and `run` finish before returning, so a cached statement is
 * never busy when it is reused; streams (`iterate`, which holds its statement until the caller stops) go to
 * Kysely's connection and prepare their own.
 */
class CachingConnection implements DatabaseConnection {
  private readonly statements = new LRUCache<string, BetterSqlite3.Statement>({ max: CACHED_STATEMENTS });

  constructor(
    private readonly database: BetterSqlite3.Database,
    private readonly connection: DatabaseConnection,
  ) {}

  private prepare(text: string): BetterSqlite3.Statement {
    let statement = this.statements.get(text);
    if (statement === undefined) {
      statement = this.database.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  // async: a failing query rejects, as Kysely's connection does, rather than throwing at the call.
  // eslint-disable-next-line @typescript-eslint/require-await
  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const statement = this.prepare(query.sql);
      const { parameters } = query;
      if (statement.reader) return { rows: statement.all(parameters) as R[] };
      const { changes, lastInsertRowid } = statement.run(parameters);
      return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
    } catch (error) {
      throw fromSqliteError(error);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.connection.streamQuery<R>(query, chunkSize);
  }
}

/**
 * Transactions start with BEGIN IMMEDIATE, taking the write lock at once (waiting for it under busy_timeout).
 * Kysely's plain BEGIN is deferred: a transaction that reads first (the migrator's state, replaceBrand's
 * current brand) and writes next fails at once with SQLITE_BUSY(_SNAPSHOT) if another process wrote in
 * between, since SQLite cannot wait its way out of that. Statements are cached (CachingConnection).
 */
class ImmediateSqliteDriver extends SqliteDriver {
  private caching: DatabaseConnection | undefined;

  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database });
  }

  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    this.caching ??= new CachingConnection(this.database, connection);
    return this.caching;
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /**
   * SQLite rolls a transaction back by itself after some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_BUSY on
   * COMMIT): rolling back again would fail ("no transaction is active") and hide the error that caused it.
   */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.database.inTransaction) await super.rollbackTransaction(connection);
  }
}

class SerializingSqliteDialect extends SqliteDialect {
  constructor(private readonly database: BetterSqlite3.Database) {
    super({ database });
  }

  override createDriver(): Driver {
    return new ImmediateSqliteDriver(this.database);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}

/**
 * `mkdir -p` without Node's `recursive: true`, which never returns when a directory that exists answers
 * ENOENT for a child it cannot hold (`/proc/x/y` on Linux): it retries the parent, then the child, forever.
 */
function makeDirectory(dir: string): void {
  try {
    mkdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return;
    if (code !== 'ENOENT' || dirname(dir) === dir) throw error;
    makeDirectory(dirname(dir));
    mkdirSync(dir);
  }
}

/**
 * Turning a new file to WAL takes the write lock while holding a read lock, so when two processes open a new
 * file at once one of them gets SQLITE_BUSY at once: SQLite does not wait there, as waiting could deadlock.
 * The other has switched the file by then, so a retry after a few milliseconds succeeds.
 */
function enableWal(database: BetterSqlite3.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      database.pragma('journal_mode = WAL');
      return;
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
}

function openFile(path: string): BetterSqlite3.Database {
  try {
    if (path !== ':memory:') makeDirectory(dirname(path));
    const database = new BetterSqlite3(path);
    enableWal(database);
    database.pragma('synchronous = NORMAL');
    database.pragma('foreign_keys = ON');
    database.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
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
      hub.confirm();
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
  const db = new Kysely<Database>({ dialect: new SerializingSqliteDialect(database) });
  try {
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw new DatabaseUnavailableError(`cannot migrate SQLite database at ${path}: ${describeError(error)}`);
  }
  return kyselyStore(db, {
    kind: 'sqlite',
    hub: new ChangeHub(watchDataVersion(database)),
    announce: () => Promise.resolve(),
  });
}
