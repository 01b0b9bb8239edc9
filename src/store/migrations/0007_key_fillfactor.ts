import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/** The tables whose rows get a new `last_used_at` every flush while their credential is in use (src/services/auth/usage.ts). */
const STAMPED_TABLES = ['brand_keys', 'api_keys', 'email_keys', 'access_tokens'];

/**
 * On PostgreSQL, key and token rows keep 30 % of each page free, so that a flush's `last_used_at` update can
 * stay on the row's page without touching its indexes (a HOT update): with full pages, a flush of 50,000 stamps
 * cost the server 1.7-2.1 s of CPU, with 70 % pages 0.6-1.1 s (docs/operations.md "Operations"). New pages are filled to
 * 70 %; pages written before fill up as rows move. SQLite has no such setting.
 */
export async function up(db: AnyDatabase): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  for (const table of STAMPED_TABLES)
    await sql`alter table ${sql.table(table)} set (fillfactor = 70)`.execute(db);
}
