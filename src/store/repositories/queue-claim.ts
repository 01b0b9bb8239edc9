import type { Kysely } from 'kysely';
import type { EmailStatus } from '../../contract/email.js';
import type { DeliveryStatus } from '../../contract/webhooks.js';
import type { Database } from '../schema.js';
import type { Session } from '../session.js';

/** The tables of the delivery queue's jobs: webhook deliveries, and email recipients (docs/webhooks.md "Webhooks"). */
type QueueTable = 'deliveries' | 'email_recipients';

/** What a worker asks of a claim: up to `limit` jobs due by `now`, leased to `lease` until `leaseUntil`. */
export interface QueueClaim {
  lease: string;
  now: string;
  leaseUntil: string;
  limit: number;
}

/**
 * Leases up to `limit` jobs of `table` that are due and held by no live lease, and reads them with `read` in
 * the same transaction. A look without the write lock comes first: an idle queue (the usual case) costs one
 * indexed read per poll. On PostgreSQL the claim skips the rows another node is claiming (`FOR UPDATE SKIP
 * LOCKED`), so nodes claim side by side instead of waiting for each other.
 */
export async function claimDue<Job>(
  session: Session,
  table: QueueTable,
  claim: QueueClaim,
  read: (db: Kysely<Database>, ids: readonly string[]) => Promise<Job[]>,
): Promise<Job[]> {
  const { lease, now, leaseUntil, limit } = claim;
  const due = (db: Kysely<Database>) =>
    db
      .selectFrom(table)
      .select('id')
      .where('next_attempt_at', '<=', now)
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
      .orderBy('next_attempt_at')
      .limit(limit);
  if ((await due(session.db).execute()).length === 0) return [];
  return session.transaction(async ({ db, backend }) => {
    const ids = (
      await due(db)
        .$if(backend.kind === 'postgres', (query) => query.forUpdate().skipLocked())
        .execute()
    ).map((row) => row.id);
    if (ids.length === 0) return [];
    await db
      .updateTable(table)
      .set({ lease_owner: lease, lease_expires_at: leaseUntil })
      .where('id', 'in', ids)
      .execute();
    return read(db, ids);
  });
}

/** Gives a job back before its lease runs out (an attempt aborted as the worker stops): due again at once. */
export async function releaseLease(
  session: Session,
  table: QueueTable,
  id: string,
  lease: string,
): Promise<void> {
  await session.db
    .updateTable(table)
    .set({ lease_owner: null, lease_expires_at: null })
    .where('id', '=', id)
    .where('lease_owner', '=', lease)
    .execute();
}

/**
 * Jobs of `table` still waiting for an attempt, by status. A settled job has no next attempt: this reads the
 * due-time index alone, however long the history.
 */
export function countQueued(
  session: Session,
  table: 'deliveries',
): Promise<{ status: DeliveryStatus; count: number }[]>;
export function countQueued(
  session: Session,
  table: 'email_recipients',
): Promise<{ status: EmailStatus; count: number }[]>;
export async function countQueued(
  session: Session,
  table: QueueTable,
): Promise<{ status: DeliveryStatus | EmailStatus; count: number }[]> {
  const rows = await session.db
    .selectFrom(table)
    .select(['status', (eb) => eb.fn.countAll<number | string>().as('count')])
    .where('next_attempt_at', 'is not', null)
    .groupBy('status')
    .orderBy('status')
    .execute();
  return rows.map((row) => ({ status: row.status, count: Number(row.count) }));
}
