import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { UsageStamp } from '../store.js';
import type { KeyTable } from './keys.js';

/** The tables of credentials whose `last_used_at` is stamped in batches (src/services/usage.ts). */
type StampedTable = KeyTable | 'access_tokens';

/** Moves `last_used_at` forward only, so nodes flushing in any order agree on the latest use. */
export async function stampLastUse(
  db: Kysely<Database>,
  table: StampedTable,
  stamps: readonly UsageStamp[],
): Promise<void> {
  for (const { id, usedAt } of stamps) {
    await db
      .updateTable(table)
      .set({ last_used_at: usedAt })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', usedAt)]))
      .execute();
  }
}
