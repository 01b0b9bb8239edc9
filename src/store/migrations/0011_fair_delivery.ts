import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * Fair delivery (docs/webhooks.md "Fair delivery"): a claim counts the attempts in flight per endpoint and per
 * workspace, takes each endpoint's oldest due deliveries, and passes over endpoints backing off after a
 * failed attempt.
 */
export async function up(db: AnyDatabase): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';

  // An endpoint whose last attempt failed gets no other attempt until `backoff_until`: a row only while it
  // backs off, kept apart from `webhooks` so that recording attempts never touches the endpoint's own row.
  await db.schema
    .createTable('webhook_backoffs')
    .addColumn('webhook_id', 'text', (c) => c.primaryKey().references('webhooks.id').onDelete('cascade'))
    .addColumn('backoff_until', timestamp, (c) => c.notNull())
    .execute();

  // The leases held (attempts in flight, or left by a node that died): few rows, read at every claim.
  await db.schema
    .createIndex('deliveries_leased_idx')
    .on('deliveries')
    .columns(['lease_expires_at', 'workspace_id', 'webhook_id'])
    .where(sql.ref('lease_owner'), 'is not', null)
    .execute();
  // An endpoint's due deliveries, oldest first, without reading its whole delivery log.
  await db.schema
    .createIndex('deliveries_webhook_due_idx')
    .on('deliveries')
    .columns(['webhook_id', 'next_attempt_at'])
    .where(sql.ref('next_attempt_at'), 'is not', null)
    .execute();
}
