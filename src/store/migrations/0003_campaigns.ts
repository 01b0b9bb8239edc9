import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/** Campaign drafts, the workspace API keys that reach them, and who acted in the audit log. */
export async function up(db: AnyDatabase): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';

  await db.schema
    .createTable('campaigns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('preheader', 'text', (c) => c.notNull())
    .addColumn('body_html', 'text', (c) => c.notNull())
    .addColumn('body_text', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'scheduled', 'sent')`))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  // Listings page newest first by (created_at, id).
  await db.schema
    .createIndex('campaigns_workspace_created_idx')
    .on('campaigns')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  // The same columns as brand_keys: another kind of key, kept apart so neither can pass for the other.
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('revoked_at', timestamp)
    .addColumn('last_used_at', timestamp)
    .execute();
  await db.schema.createIndex('api_keys_workspace_idx').on('api_keys').column('workspace_id').execute();

  await db.schema
    .alterTable('audit_events')
    .addColumn('actor_type', 'text', (c) => c.notNull().defaultTo('user'))
    .execute();
  await db
    .updateTable('audit_events')
    .set({ actor_type: 'operator' })
    .where('actor_id', 'is', null)
    .execute();
}
