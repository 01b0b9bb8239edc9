import { type Kysely, PostgresAdapter } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * Sign-in sessions are stateless tokens; signing out records the session here until its token would have
 * expired anyway, so a copied cookie stops working at once.
 */
export async function up(db: AnyDatabase): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';
  await db.schema
    .createTable('signed_out_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('signed_out_sessions_expires_idx')
    .on('signed_out_sessions')
    .column('expires_at')
    .execute();
}
