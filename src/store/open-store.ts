import type { DatabaseConfig } from '../config.js';
import { openPostgresStore } from './postgres.js';
import { openSqliteStore } from './sqlite.js';
import type { Store } from './store.js';

/** Opens the configured database and brings its schema up to date. */
export function openStore(database: DatabaseConfig): Promise<Store> {
  return database.kind === 'postgres' ? openPostgresStore(database.url) : openSqliteStore(database.path);
}
