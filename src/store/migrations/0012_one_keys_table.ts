import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/** The key kinds when this migration was written, and the table each one had until then. */
const OLD_TABLES = { brand: 'brand_keys', api: 'api_keys', email: 'email_keys' } as const;

/** The columns every key table had, in the order they are copied. */
const COLUMNS = [
  'id',
  'workspace_id',
  'name',
  'key_hash',
  'prefix',
  'last4',
  'created_by',
  'created_at',
  'expires_at',
  'revoked_at',
  'last_used_at',
] as const;

/**
 * The three key tables of identical columns (brand read keys, workspace API keys, transactional email keys)
 * become one, `keys`, whose `kind` column says which (src/core/key-kinds.ts): a kind is a value, not a table.
 * The kinds the database accepts are rows of `key_kinds`, so that adding one is a migration that inserts its
 * row (a check constraint could only be widened on SQLite by copying the whole table again).
 * Every row is copied as it was, ids, hashes and times included. The hash stays unique, now across kinds;
 * ids already were (each kind's ids have their own prefix). A lookup by hash stays one search of that unique
 * index. The indexes that served one kind's table serve one kind's rows: the workspace's keys
 * (`workspace_id, kind`), the expiry sweep (`kind, expires_at`), and a workspace's revoked keys (partial, as
 * 0008 made it). On PostgreSQL the rows keep 30 % of each page free, as 0007 set for the old tables.
 */
export async function up(db: AnyDatabase): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  // Nodes of the earlier release may still run: their reads go on until the old tables are dropped, but a key
  // they created or stamped after the copy would be lost with them, so their writes wait, then fail. (SQLite
  // migrates in a transaction that holds the write lock from its start, src/store/sqlite.ts.)
  const oldTables = sql.join(Object.values(OLD_TABLES).map((table) => sql.table(table)));
  if (postgres) await sql`lock table ${oldTables} in share mode`.execute(db);

  await db.schema
    .createTable('key_kinds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .execute();
  await db
    .insertInto('key_kinds')
    .values(Object.keys(OLD_TABLES).map((id) => ({ id })))
    .execute();

  await db.schema
    .createTable('keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().references('key_kinds.id'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    // Null: a key of a kind that lives until revoked (transactional email keys, unless given an expiry).
    .addColumn('expires_at', timestamp)
    .addColumn('revoked_at', timestamp)
    .addColumn('last_used_at', timestamp)
    .$call((table) => (postgres ? table.modifyEnd(sql`with (fillfactor = 70)`) : table))
    .execute();

  const columns = sql.join(COLUMNS.map((column) => sql.ref(column)));
  for (const [kind, table] of Object.entries(OLD_TABLES)) {
    // email_keys.created_by had no foreign key; a creator whose account is gone is cleared, as the others'
    // were when the account was deleted.
    await sql`
      insert into keys (kind, ${columns})
      select ${sql.lit(kind)}, ${sql.join(
        COLUMNS.map((column) =>
          column === 'created_by'
            ? sql`(select users.id from users where users.id = ${sql.ref(`${table}.created_by`)})`
            : sql.ref(`${table}.${column}`),
        ),
      )}
      from ${sql.table(table)}
    `.execute(db);
  }

  // Built after the copy: one sort each rather than an index update per copied row, which also leaves them
  // packed. The hash's is the lookup of every read the key cache misses.
  await db.schema.createIndex('keys_hash_idx').on('keys').column('key_hash').unique().execute();
  await db.schema.createIndex('keys_workspace_idx').on('keys').columns(['workspace_id', 'kind']).execute();
  await db.schema.createIndex('keys_expires_idx').on('keys').columns(['kind', 'expires_at']).execute();
  await db.schema
    .createIndex('keys_revoked_idx')
    .on('keys')
    .columns(['workspace_id', 'kind', 'expires_at'])
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();

  for (const table of Object.values(OLD_TABLES)) await db.schema.dropTable(table).execute();
  // Statistics now, not at autovacuum's next pass: the first lookups plan against the copied rows.
  if (postgres) await sql`analyze keys`.execute(db);
}
