import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * The revoked brand read keys, apart: every node keeps their hashes in memory to verify signed keys without a
 * lookup (src/services/signed-keys.ts), loading all of them at start and a workspace's after each of its
 * changes. Partial indexes hold only revoked rows, one for each load, so that neither reads the whole key
 * table: without one of its own, SQLite's planner reads every unexpired key by `expires_at`'s index (a second
 * on a 1,000,000-key store, at every start) or every key of the workspace by `workspace_id`'s.
 */
export async function up(db: AnyDatabase): Promise<void> {
  await db.schema
    .createIndex('brand_keys_revoked_idx')
    .on('brand_keys')
    .columns(['workspace_id', 'expires_at'])
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();
  await db.schema
    .createIndex('brand_keys_revoked_expiry_idx')
    .on('brand_keys')
    .column('expires_at')
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();
}
