import type { DatabaseConfig } from '../config.js';
import type { Store } from './store.js';

/**
 * Opens the configured database and brings its schema up to date. Each backend's driver is loaded only
 * when it is used, so an SQLite deployment never pays pg's memory, nor PostgreSQL better-sqlite3's.
 */
export async function openStore(database: DatabaseConfig): Promise<Store> {
  if (database.kind === 'postgres') return (await import('./postgres.js')).openPostgresStore(database.url);
  return (await import('./sqlite.js')).openSqliteStore(database.path);
}
