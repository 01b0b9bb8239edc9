import { CompiledQuery, sql } from 'kysely';
import type { Session } from '../session.js';
import type { UsageStamp } from '../store.js';

/** The tables of credentials whose `last_used_at` is stamped in batches (src/services/auth/usage.ts). */
type StampedTable = 'keys' | 'access_tokens';

/**
 * Stamps per PostgreSQL statement: 50,000 took ~1 s in one statement on a loaded 2-core machine, so batches
 * of 10,000 stay far inside the statement timeout (src/store/postgres.ts).
 */
const POSTGRES_BATCH = 10_000;

/**
 * Stamps per SQLite statement (each its own transaction): 50,000 took 0.3-0.5 s, during which the one
 * connection serves nothing else; 2,000 keep each pause of the other queries to a few tens of milliseconds.
 */
const SQLITE_BATCH = 2_000;

/** One stamp per id, the latest: a statement that joins an id twice would update it with either. */
function latestPerId(stamps: readonly UsageStamp[]): UsageStamp[] {
  const latest = new Map<string, string>();
  for (const { id, usedAt } of stamps) {
    const seen = latest.get(id);
    if (seen === undefined || Date.parse(seen) < Date.parse(usedAt)) latest.set(id, usedAt);
  }
  // In id order, so that two nodes flushing at once tend to lock shared rows in the same order.
  return [...latest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([id, usedAt]) => ({ id, usedAt }));
}

/**
 * Moves `last_used_at` forward only, so nodes flushing in any order agree on the latest use. A flush is one
 * statement per batch of thousands (POSTGRES_BATCH, SQLITE_BATCH) on either backend: one round trip per key
 * made a node with 50,000 keys in use take 10 s to stop (docs/operations.md "Operations").
 */
export async function stampLastUse(
  session: Session,
  table: StampedTable,
  stamps: readonly UsageStamp[],
): Promise<void> {
  const batch = latestPerId(stamps);
  if (batch.length === 0) return;
  if (session.backend.kind === 'postgres') {
    for (let start = 0; start < batch.length; start += POSTGRES_BATCH) {
      const part = batch.slice(start, start + POSTGRES_BATCH);
      await sql`
        update ${sql.table(table)} as t
        set last_used_at = s.used_at
        from unnest(${part.map((stamp) => stamp.id)}::text[], ${part.map((stamp) => stamp.usedAt)}::timestamptz[])
          as s(id, used_at)
        where t.id = s.id and (t.last_used_at is null or t.last_used_at < s.used_at)
      `.execute(session.db);
    }
    return;
  }
  // One statement per batch, the stamps as one JSON parameter (the same SQL text, prepared once by the SQLite
  // connection, src/store/sqlite.ts): a statement per stamp cost a query's overhead 50,000 times a flush.
  const update = `update "${table}" as t set last_used_at = s.value ->> 1 from json_each(?) as s
    where t.id = s.value ->> 0 and (t.last_used_at is null or t.last_used_at < s.value ->> 1)`;
  for (let start = 0; start < batch.length; start += SQLITE_BATCH) {
    const part = batch.slice(start, start + SQLITE_BATCH).map(({ id, usedAt }) => [id, usedAt]);
    await session.db.executeQuery(CompiledQuery.raw(update, [JSON.stringify(part)]));
  }
}
