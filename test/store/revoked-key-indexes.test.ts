import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';

/**
 * SQLite's planner has no statistics, so it may read every key of a workspace through `workspace_id`'s index
 * where the partial one of the revoked rows would do (src/store/migrations/0008_revoked_keys.ts). A
 * workspace's revocations (src/services/keys/signed-keys.ts) must be searched in the partial index, as the plan shows.
 */
describe('Asking for a workspace’s revoked keys on SQLite', () => {
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

  /** The plan of KeysTables.revokedHashes's query (src/store/repositories/keys.ts). */
  const plan = (...parameters: string[]) =>
    database
      .prepare<string[], { detail: string }>(
        'explain query plan select "key_hash" from "brand_keys" where "workspace_id" = ? and "revoked_at" is not null and "expires_at" > ?',
      )
      .all(...parameters)
      .map((step) => step.detail);

  it('reads one workspace’s revocations through the partial index of revoked keys by workspace', () => {
    expect(plan('ws_a', '2026-11-20T10:00:00.000Z')).toEqual([
      'SEARCH brand_keys USING INDEX brand_keys_revoked_idx (workspace_id=? AND expires_at>?)',
    ]);
  });
});
