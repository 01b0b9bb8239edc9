import { type Kysely, Migrator } from 'kysely';
import { migrationProvider } from './migrations/index.js';
import { describeError } from './errors.js';
import type { Database } from './schema.js';

/**
 * Applies pending migrations. On PostgreSQL, Kysely holds an advisory lock while it does, so several nodes
 * starting at once apply each migration exactly once.
 */
export async function migrateToLatest(db: Kysely<Database>): Promise<void> {
  const { error } = await new Migrator({ db, provider: migrationProvider }).migrateToLatest();
  if (error !== undefined) throw error instanceof Error ? error : new Error(describeError(error));
}
