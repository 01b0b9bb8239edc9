import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from 'kysely';
import pg from 'pg';
import { ChangeHub } from './change-feed.js';
import { DatabaseUnavailableError, describeError, StoreError } from './errors.js';
import { kyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrate.js';
import { preparedName } from './prepared.js';
import type { Database } from './schema.js';
import type { Store } from './store.js';

export const CHANGE_CHANNEL = 'brand_context_changes';
const RECONNECT_DELAY_MS = 500;
/** Connecting, or waiting for a free connection of the pool. */
const CONNECT_TIMEOUT_MS = 5000;
/** Enforced by the server (`statement_timeout`) while it runs... */
const STATEMENT_TIMEOUT_MS = 5000;
/** ...and by the client, a little later, since a frozen or unreachable server enforces nothing. */
const QUERY_TIMEOUT_MS = STATEMENT_TIMEOUT_MS + 1000;
/** How often the LISTEN connection proves the server still answers, and how long it may take. */
const HEARTBEAT_INTERVAL_MS = 500;
const HEARTBEAT_TIMEOUT_MS = 1000;

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

/** SQLSTATEs after which the server cannot do the work for now (class 08, connection exceptions, too). */
const UNAVAILABLE_SQLSTATES: Readonly<Record<string, string>> = {
  '53300': 'too many connections',
  '57014': 'a statement timed out',
  '57P01': 'the server is shutting down',
  '57P02': 'the server crashed',
  '57P03': 'the server is starting up or shutting down',
};

const UNAVAILABLE_SOCKET_ERRORS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection lost',
  EPIPE: 'connection lost',
  ETIMEDOUT: 'server unreachable',
  EHOSTUNREACH: 'server unreachable',
  ENETUNREACH: 'server unreachable',
  ENOTFOUND: 'server not found',
  EAI_AGAIN: 'server not found',
};

/** pg reports timeouts and lost connections in words only. */
const UNAVAILABLE_MESSAGES: readonly [RegExp, string][] = [
  [/^Query read timeout$/, 'a statement timed out'],
  [/timeout/i, 'connecting timed out'],
  [/^Connection terminated|not queryable/, 'connection lost'],
];

function unavailableReason(error: unknown): string | undefined {
  if (error instanceof AggregateError) return unavailableReason(error.errors[0]);
  if (!(error instanceof Error)) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') {
    if (error instanceof pg.DatabaseError)
      return UNAVAILABLE_SQLSTATES[code] ?? (code.startsWith('08') ? 'connection failed' : undefined);
    return UNAVAILABLE_SOCKET_ERRORS[code];
  }
  return UNAVAILABLE_MESSAGES.find(([pattern]) => pattern.test(error.message))?.[1];
}

/** The driver's errors that no request can fix, as the store reports them; others pass unchanged. */
function fromPostgresError(error: unknown): unknown {
  if (error instanceof pg.DatabaseError && error.code === '53100')
    return new StoreError('storage_full', 'no space left on the disk', error);
  const reason = unavailableReason(error);
  return reason === undefined ? error : new StoreError('service_unavailable', reason, error);
}

/**
 * pg's pool as Kysely uses it, with the driver's errors translated (fromPostgresError). A client whose
 * connection failed is discarded rather than handed to the next query: after a client-side timeout the
 * server may still be running the statement, inside a transaction that was never rolled back.
 */
function translatingPool(pool: pg.Pool): PostgresPool {
  return {
    async connect() {
      const client = await pool.connect().catch((error: unknown) => {
        throw fromPostgresError(error);
      });
      let broken: Error | undefined;
      const query = async (text: string, parameters: readonly unknown[]) => {
        if (broken) throw fromPostgresError(broken);
        try {
          // The hot key lookup runs as a named prepared statement (src/store/prepared.ts).
          const name = preparedName(text);
          return await client.query({
            text,
            values: [...parameters],
            ...(name === undefined ? {} : { name }),
          });
        } catch (error) {
          // The server's own errors (pg.DatabaseError) leave the connection usable; nothing else does.
          if (!(error instanceof pg.DatabaseError))
            broken = error instanceof Error ? error : new Error(String(error));
          throw fromPostgresError(error);
        }
      };
      return {
        // Kysely's other overload (a cursor) is used only for streaming, which this store does not do; pg's
        // result names its command as a plain string.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => {
          client.release(broken);
        },
      };
    },
    end: () => pool.end(),
  };
}

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
 * stops serving from memory) and, once back, reports that anything may have changed meanwhile. A heartbeat
 * proves the server still answers: a frozen server or a silent network never closes the connection.
 */
function listenForChanges(url: string) {
  return (hub: ChangeHub) => {
    let current: pg.Client | undefined;
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;

    const later = (work: () => void, ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(work, ms);
      timer.unref();
    };

    const lost = (client: pg.Client) => {
      if (client !== current || stopped) return;
      current = undefined;
      hub.live = false;
      void client.end().catch(() => undefined);
      later(connect, RECONNECT_DELAY_MS);
    };

    const heartbeat = (client: pg.Client) => {
      later(() => {
        client.query('select 1').then(
          () => {
            if (client !== current) return;
            hub.confirm();
            heartbeat(client);
          },
          () => {
            lost(client);
          },
        );
      }, HEARTBEAT_INTERVAL_MS);
    };

    const connect = () => {
      const client = new pg.Client({
        connectionString: url,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        query_timeout: HEARTBEAT_TIMEOUT_MS,
      });
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
          hub.confirm();
          hub.emit({ workspaceId: null });
          heartbeat(client);
        })
        .catch(() => {
          lost(client);
        });
    };

    hub.live = false;
    connect();
    return () => {
      stopped = true;
      clearTimeout(timer);
      void current?.end().catch(() => undefined);
      current = undefined;
    };
  };
}

/**
 * Migrations run on a connection of their own, without the request timeouts: a node starting beside others
 * waits for their migration lock, and a migration may take longer than any request should.
 */
async function migrate(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}

export async function openPostgresStore(url: string): Promise<Store> {
  const pool = new pg.Pool({
    connectionString: url,
    types: typeParsers,
    max: 10,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    statement_timeout: STATEMENT_TIMEOUT_MS,
    query_timeout: QUERY_TIMEOUT_MS,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: translatingPool(pool) }) });
  try {
    await sql`select 1`.execute(db);
    await migrate(url);
  } catch (error) {
    await db.destroy();
    throw new DatabaseUnavailableError(
      `cannot use PostgreSQL at ${describePostgresUrl(url)}: ${describeError(error)}`,
    );
  }
  return kyselyStore(db, {
    kind: 'postgres',
    hub: new ChangeHub(listenForChanges(url)),
    announce: async (conn, workspaceId) => {
      await sql`select pg_notify(${CHANGE_CHANNEL}, ${workspaceId})`.execute(conn);
    },
  });
}
