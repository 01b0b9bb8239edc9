import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';

/**
 * SQLite's planner has no statistics, so it may read a 1,000,000-key table through another index where a
 * partial one of the revoked rows would do (src/store/migrations/0008_revoked_keys.ts). Each load of the
 * revocations (src/services/signed-keys.ts) must search its own partial index, as these plans show.
 */
describe('Loading the revoked keys on SQLite', () => {
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

  const plan = (where: string, ...parameters: string[]) =>
    database
      .prepare<string[], { detail: string }>(
        `explain query plan select "key_hash" from "brand_keys" where "revoked_at" is not null and ${where}`,
      )
      .all(...parameters)
      .map((step) => step.detail);

  it('reads every workspace’s revocations through the partial index of revoked keys by expiry', () => {
    expect(plan('"expires_at" > ?', '2026-11-20T10:00:00.000Z')).toEqual([
      'SEARCH brand_keys USING INDEX brand_keys_revoked_expiry_idx (expires_at>?)',
    ]);
  });

  it('reads one workspace’s revocations through the partial index of revoked keys by workspace', () => {
    expect(plan('"expires_at" > ? and "workspace_id" = ?', '2026-11-20T10:00:00.000Z', 'ws_a')).toEqual([
      'SEARCH brand_keys USING INDEX brand_keys_revoked_idx (workspace_id=? AND expires_at>?)',
    ]);
  });
});
