import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { Kysely, SqliteDialect } from 'kysely';
import { openStore } from '../../src/store/open-store.js';
import { keyLookupByHashes } from '../../src/store/repositories/keys.js';
import type { Database } from '../../src/store/schema.js';

/**
 * SQLite's planner has no statistics, so it may pick an index that reads every key of a kind or a workspace
 * where a narrower one would do. The queries that run most must search the index meant for them, as their
 * plans show: the lookup by hash (every read the key cache misses, src/store/repositories/keys.ts) and a
 * workspace's revocations (src/services/keys/signed-keys.ts), in the partial index of revoked rows
 * (src/store/migrations/0012_one_keys_table.ts).
 */
describe('Key queries on SQLite', () => {
  let dir: string;
  let database: BetterSqlite3.Database;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'brand-context-plan-'));
    const path = join(dir, 'brand-context.db');
    await (await openStore(parseDatabaseUrl(`sqlite:${path}`))).close();
    database = new BetterSqlite3(path, { readonly: true });
  });

  afterAll(async () => {
    database.close();
    await rm(dir, { recursive: true, force: true });
  });

  const plan = (query: string, ...parameters: string[]) =>
    database
      .prepare<string[], { detail: string }>(`explain query plan ${query}`)
      .all(...parameters)
      .map((step) => step.detail);

  it('looks keys up by hash in the unique index of hashes, not through an index of their kind', () => {
    const lookup = keyLookupByHashes(
      new Kysely<Database>({ dialect: new SqliteDialect({ database }) }),
      'sqlite',
    );
    expect(plan(lookup.sql, '["a", "b"]')[0]).toMatch(
      /^SEARCH keys USING INDEX keys_hash_idx \(key_hash=\?\)$/,
    );
  });

  it('reads one workspace’s revocations through the partial index of revoked keys by workspace', () => {
    // KeysTable.revokedHashes's query.
    expect(
      plan(
        'select "key_hash" from "keys" where "workspace_id" = ? and "kind" = ? and "revoked_at" is not null and "expires_at" > ?',
        'ws_a',
        'brand',
        '2026-11-20T10:00:00.000Z',
      ),
    ).toEqual(['SEARCH keys USING INDEX keys_revoked_idx (workspace_id=? AND kind=? AND expires_at>?)']);
  });
});
