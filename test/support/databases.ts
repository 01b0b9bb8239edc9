import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe } from 'vitest';
import { type DatabaseConfig, parseDatabaseUrl } from '../../src/config.js';
import { randomBase62 } from '../../src/core/base62.js';

/** A fresh, empty database of one backend, dropped after its suite. */
export interface TestDatabase {
  /** What DATABASE_URL would say, for child processes. */
  url: string;
  config: DatabaseConfig;
  drop(): Promise<void>;
}

export interface TestBackend {
  name: 'sqlite' | 'postgres';
  /** Why this backend cannot run here; the suite reports itself skipped with it. */
  skipReason: string | undefined;
  create(): Promise<TestDatabase>;
}

const postgresAdminUrl = process.env.TEST_DATABASE_URL;

async function withAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: postgresAdminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export const sqliteBackend: TestBackend = {
  name: 'sqlite',
  skipReason: undefined,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'brand-context-test-'));
    const url = `sqlite:${join(dir, 'brand-context.db')}`;
    return { url, config: parseDatabaseUrl(url), drop: () => rm(dir, { recursive: true, force: true }) };
  },
};

/** Each suite gets its own database on the TEST_DATABASE_URL server, so suites run in parallel. */
export const postgresBackend: TestBackend = {
  name: 'postgres',
  skipReason: postgresAdminUrl ? undefined : 'TEST_DATABASE_URL is not set',
  async create() {
    const name = `brand_context_test_${randomBase62(12).toLowerCase()}`;
    await withAdmin((client) => client.query(`CREATE DATABASE ${name}`));
    const url = new URL(postgresAdminUrl ?? '');
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      config: parseDatabaseUrl(url.toString()),
      drop: () =>
        withAdmin((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
          () => undefined,
        ),
    };
  },
};

export const backends = [sqliteBackend, postgresBackend];

/**
 * Declares `suite` once per backend. A backend that cannot run says why in the suite's name and is
 * reported as skipped, never silently passed.
 */
export function describeEachBackend(title: string, suite: (backend: TestBackend) => void): void {
  for (const backend of backends) {
    const name = backend.skipReason
      ? `${title} [${backend.name}] — skipped: ${backend.skipReason}`
      : `${title} [${backend.name}]`;
    describe.skipIf(backend.skipReason !== undefined)(name, () => {
      suite(backend);
    });
  }
}

export type TableSnapshot = Record<string, unknown[]>;

/** Every row of every table, read through a connection of the test's own, not through the store. */
export async function snapshotTables(config: DatabaseConfig): Promise<TableSnapshot> {
  if (config.kind === 'sqlite') {
    const db = new BetterSqlite3(config.path, { readonly: true });
    try {
      const tables = db
        .prepare(
          "select name from sqlite_master where type = 'table' and name not like 'sqlite_%' order by name",
        )
        .pluck()
        .all() as string[];
      return Object.fromEntries(
        tables.map((table) => [table, db.prepare(`select * from "${table}" order by 1`).all()]),
      );
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    );
    const snapshot: TableSnapshot = {};
    for (const { table_name: table } of rows) {
      snapshot[table] = (await client.query(`select * from "${table}" order by 1`)).rows;
    }
    return snapshot;
  } finally {
    await client.end();
  }
}
