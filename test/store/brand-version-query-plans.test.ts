import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { openStore } from '../../src/store/open-store.js';

/**
 * A brand's history grows with every change and is never pruned: listing a page of it and loading one version
 * (every pinned read the cache misses) must search the primary key (workspace_id, version), never scan the
 * table or sort (src/store/migrations/0014_brand_versions.ts).
 */
describe('Brand version queries on SQLite', () => {
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

  const plan = (query: string, ...parameters: (string | number)[]) =>
    database
      .prepare<(string | number)[], { detail: string }>(`explain query plan ${query}`)
      .all(...parameters)
      .map((step) => step.detail);

  it('pages through a workspace’s history newest first in the primary key, without sorting', () => {
    // BrandTables.listVersions's query, with a cursor.
    const steps = plan(
      'select "workspace_id", "version", "created_at", "actor_type", "actor_id", "actor_email", "note", "sections_changed" from "brand_versions" where "workspace_id" = ? and "version" < ? order by "version" desc limit ?',
      'ws_a',
      10,
      20,
    );
    expect(steps).toEqual([
      expect.stringMatching(
        /^SEARCH brand_versions USING INDEX sqlite_autoindex_brand_versions_1 \(workspace_id=\? AND version<\?\)$/,
      ),
    ]);
  });

  it('loads one version by the primary key', () => {
    expect(
      plan('select * from "brand_versions" where "workspace_id" = ? and "version" = ?', 'ws_a', 3),
    ).toEqual([
      expect.stringMatching(
        /^SEARCH brand_versions USING INDEX sqlite_autoindex_brand_versions_1 \(workspace_id=\? AND version=\?\)$/,
      ),
    ]);
  });
});
