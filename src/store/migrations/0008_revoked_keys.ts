import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * The revoked brand read keys, apart: every node keeps their hashes in memory to verify signed keys without a
 * lookup (src/services/signed-keys.ts), loading all of them at start and a workspace's after each of its
 * changes. A partial index holds only revoked rows, so neither load reads the whole key table.
 */
export async function up(db: AnyDatabase): Promise<void> {
  await db.schema
    .createIndex('brand_keys_revoked_idx')
    .on('brand_keys')
    .columns(['workspace_id', 'expires_at'])
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();
}
