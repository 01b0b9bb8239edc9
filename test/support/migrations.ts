import BetterSqlite3 from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import pg from 'pg';
import { describeError } from '../../src/store/errors.js';
import { migrationProvider } from '../../src/store/migrations/index.js';
import type { TestDatabase } from './databases.js';

/** The tables as an older release left them: rows of any columns, without the service's schema types. */
export type OldDatabase = Kysely<Record<string, Record<string, unknown>>>;

/** A Kysely of the test database of its own, foreign keys enforced as the service enforces them. */
export function oldDatabase(database: TestDatabase): OldDatabase {
  const { config } = database;
  if (config.kind === 'postgres')
    return new Kysely({
      dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: config.url }) }),
    });
  const sqlite = new BetterSqlite3(config.path);
  sqlite.pragma('foreign_keys = ON');
  return new Kysely({ dialect: new SqliteDialect({ database: sqlite }) });
}

/** Applies the migrations up to `last` and no further, as the release that ended with it did. */
export async function migrateTo(db: OldDatabase, last: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo(last);
  if (error !== undefined) throw error instanceof Error ? error : new Error(describeError(error));
}
