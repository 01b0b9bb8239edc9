import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * Webhook endpoints, the events they are sent, and the delivery queue (docs/webhooks.md "Webhooks"): a transactional
 * outbox, written in the transaction of the change that causes it and claimed by workers with a lease.
 */
export async function up(db: AnyDatabase): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';

  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    // A JSON array of event types, or ["*"].
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    // Signing secrets, encrypted (src/services/shared/secret-box.ts): never stored as they are shown.
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', timestamp)
    .addColumn('disabled_at', timestamp)
    .addColumn('disabled_reason', 'text', (c) => c.check(sql`disabled_reason in ('manual', 'failing')`))
    .addColumn('failing_since', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhooks_workspace_idx').on('webhooks').column('workspace_id').execute();

  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    // The body exactly as signed and sent, on every attempt.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id').onDelete('cascade'))
    .addColumn('event_id', 'text', (c) => c.notNull().references('webhook_events.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'succeeded', 'retrying', 'failed')`),
    )
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // Null: as many as the retry schedule allows; a manual retry allows one more than made.
    .addColumn('max_attempts', 'integer')
    // Set while an attempt is due or in flight; null once the delivery is settled.
    .addColumn('next_attempt_at', timestamp)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', timestamp)
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer')
    .addColumn('error', 'text')
    .addColumn('last_attempt_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  // Workers look for due deliveries; the log pages an endpoint's deliveries newest first.
  await db.schema.createIndex('deliveries_due_idx').on('deliveries').column('next_attempt_at').execute();
  await db.schema
    .createIndex('deliveries_webhook_created_idx')
    .on('deliveries')
    .columns(['webhook_id', 'created_at', 'id'])
    .execute();

  await db.schema
    .createTable('delivery_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', timestamp, (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    .addPrimaryKeyConstraint('delivery_attempts_pk', ['delivery_id', 'attempt'])
    .execute();

  // The expiry notices sent (`expiring` 14 and 3 days before, `expired`): each once, whichever node sweeps.
  await db.schema
    .createTable('key_notices')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('notice', 'text', (c) => c.notNull())
    .addColumn('sent_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('key_notices_pk', ['key_id', 'notice'])
    .execute();
  for (const table of ['brand_keys', 'api_keys']) {
    await db.schema.createIndex(`${table}_expires_idx`).on(table).column('expires_at').execute();
  }
}
