import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * A workspace's revoked brand read keys, apart: each node asks for their hashes to verify signed keys without a
 * lookup (src/services/keys/signed-keys.ts), once per workspace and again after each of its changes. A partial
 * index holds only revoked rows, so the question does not read every key of the workspace, as SQLite's
 * planner would through `workspace_id`'s index.
 */
export async function up(db: AnyDatabase): Promise<void> {
  await db.schema
    .createIndex('brand_keys_revoked_idx')
    .on('brand_keys')
    .columns(['workspace_id', 'expires_at'])
    .where(sql.ref('revoked_at'), 'is not', null)
    .execute();
}
