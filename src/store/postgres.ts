import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { ChangeHub } from './change-feed.js';
import { DatabaseUnavailableError, describeError } from './errors.js';
import { KyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrate.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

export const CHANGE_CHANNEL = 'brand_context_changes';
const RECONNECT_DELAY_MS = 500;

const { builtins } = pg.types;
const parseTimestamptz = pg.types.getTypeParser(builtins.TIMESTAMPTZ) as (value: string) => Date;
const keepText = (value: string) => value;
/** Rows come back in the shapes SQLite gives: ISO timestamps, JSON as text, bigints as numbers. */
const parserOverrides = new Map<number, (value: string) => unknown>([
  [builtins.TIMESTAMPTZ, (value) => parseTimestamptz(value).toISOString()],
  [builtins.JSON, keepText],
  [builtins.JSONB, keepText],
  [builtins.INT8, Number],
]);
const typeParsers: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    parserOverrides.get(oid) ??
    // pg hands parsers plain numeric OIDs, which its typings model as an enum
    // eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment
    (pg.types.getTypeParser(oid, format) as (
      value: string,
    ) => unknown)) as pg.CustomTypesConfig['getTypeParser'],
};

/** `postgres://user:secret@host/db` without the password, for messages. */
export function describePostgresUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
  } catch {
    return 'the configured PostgreSQL URL';
  }
}

/**
 * Holds one connection in LISTEN on the change channel. While it is down the feed is not live (the cache
 * stops serving from memory) and, once back, reports that anything may have changed meanwhile.
 */
function listenForChanges(url: string) {
  return (hub: ChangeHub) => {
    let current: pg.Client | undefined;
    let retry: NodeJS.Timeout | undefined;
    let stopped = false;

    const lost = (client: pg.Client) => {
      if (client !== current || stopped) return;
      current = undefined;
      hub.live = false;
      void client.end().catch(() => undefined);
      retry = setTimeout(connect, RECONNECT_DELAY_MS);
      retry.unref();
    };

    const connect = () => {
      const client = new pg.Client({ connectionString: url });
      current = client;
      client.on('notification', (message) => {
        hub.emit({ workspaceId: message.payload || null });
      });
      client.on('error', () => {
        lost(client);
      });
      client.on('end', () => {
        lost(client);
      });
      client
        .connect()
        .then(() => client.query(`LISTEN ${CHANGE_CHANNEL}`))
        .then(() => {
          if (client !== current) return;
          hub.live = true;
          hub.emit({ workspaceId: null });
        })
        .catch(() => {
          lost(client);
        });
    };

    hub.live = false;
    connect();
    return () => {
      stopped = true;
      clearTimeout(retry);
      void current?.end().catch(() => undefined);
      current = undefined;
    };
  };
}

export async function openPostgresStore(url: string): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    types: typeParsers,
    max: 10,
    connectionTimeoutMillis: 5000,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select 1`.execute(db);
    await migrateToLatest(db);
  } catch (error) {
    await db.destroy();
    throw new DatabaseUnavailableError(
      `cannot use PostgreSQL at ${describePostgresUrl(url)}: ${describeError(error)}`,
    );
  }
  return new KyselyStore(db, {
    kind: 'postgres',
    hub: new ChangeHub(listenForChanges(url)),
    announce: async (conn, workspaceId) => {
      await sql`select pg_notify(${CHANGE_CHANNEL}, ${workspaceId})`.execute(conn);
    },
    ping: async (conn) => {
      await sql`select 1`.execute(conn);
    },
    close: () => Promise.resolve(),
  });
}
