import { type Kysely, type Selectable, sql } from 'kysely';
import type { DeliveryStatus } from '../../contract/webhooks.js';
import { type DueEndpoint, fairOrder, fairPicks, type InFlight } from '../../core/fair-claim.js';
import type { Database } from '../schema.js';
import type { Session } from '../session.js';
import type {
  ClaimedDelivery,
  DeliveriesRepository,
  DeliveryAttemptRecord,
  ListPosition,
  DeliveryOutcome,
  DeliveryRecord,
  WebhookEventRecord,
} from '../store.js';
import { listedAfter } from './list-position.js';
import { countQueued, type QueueClaim, releaseLease } from './queue-claim.js';

export interface WebhookEventColumns {
  id: string;
  workspace_id: string;
  type: string;
  payload: string;
  created_at: string;
}

export interface DeliveryColumns {
  id: string;
  workspace_id: string;
  webhook_id: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  max_attempts: number | null;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  response_status: number | null;
  duration_ms: number | null;
  error: string | null;
  last_attempt_at: string | null;
  created_at: string;
}

/** An endpoint backing off after a failed attempt: no delivery of it is claimed before `backoff_until`. */
export interface WebhookBackoffColumns {
  webhook_id: string;
  backoff_until: string;
}

export interface DeliveryAttemptColumns {
  delivery_id: string;
  attempt: number;
  attempted_at: string;
  response_status: number | null;
  duration_ms: number;
  error: string | null;
}

type DeliveryRow = Selectable<DeliveryColumns> & { event_type: string };

function toDelivery(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    webhookId: row.webhook_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.max_attempts,
    nextAttemptAt: row.next_attempt_at,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
    lastAttemptAt: row.last_attempt_at,
    createdAt: row.created_at,
  };
}

function toAttempt(row: Selectable<DeliveryAttemptColumns>): DeliveryAttemptRecord {
  return {
    attempt: row.attempt,
    attemptedAt: row.attempted_at,
    responseStatus: row.response_status,
    durationMs: row.duration_ms,
    error: row.error,
  };
}

export class DeliveriesTable implements DeliveriesRepository {
  constructor(private readonly session: Session) {}

  /** Deliveries with their event's type (and, when asked, its payload), read through `db`. */
  private withEvent(db: Session['db'] = this.session.db) {
    return db
      .selectFrom('deliveries')
      .innerJoin('webhook_events', 'webhook_events.id', 'deliveries.event_id')
      .selectAll('deliveries')
      .select('webhook_events.type as event_type');
  }

  async enqueue(
    event: WebhookEventRecord,
    deliveries: readonly { id: string; webhookId: string }[],
  ): Promise<void> {
    await this.session.write(undefined, async (db) => {
      await db
        .insertInto('webhook_events')
        .values({
          id: event.id,
          workspace_id: event.workspaceId,
          type: event.type,
          payload: event.payload,
          created_at: event.createdAt,
        })
        .execute();
      await db
        .insertInto('deliveries')
        .values(
          deliveries.map((delivery) => ({
            id: delivery.id,
            workspace_id: event.workspaceId,
            webhook_id: delivery.webhookId,
            event_id: event.id,
            status: 'pending' as const,
            attempts: 0,
            max_attempts: null,
            next_attempt_at: event.createdAt,
            created_at: event.createdAt,
          })),
        )
        .execute();
    });
  }

  /**
   * Fair claim (docs/webhooks.md "Fair delivery"): a look without the write lock finds the endpoints with due
   * deliveries and orders them (src/core/fair-claim.ts); an idle queue, or one whose endpoints are all busy
   * or backing off, costs a few index probes per endpoint with queued deliveries, and no lock. Then, in one
   * transaction, the endpoints are taken in that order (on PostgreSQL, their rows locked FOR NO KEY UPDATE,
   * skipping those another node is claiming, so nodes claim side by side) and what is due and in flight for
   * them read again: under the lock, so that no endpoint ever has more than `perEndpoint` leases live,
   * whichever nodes claim.
   */
  async claim(claim: QueueClaim & { perEndpoint?: number | undefined }): Promise<ClaimedDelivery[]> {
    const { lease, now, leaseUntil, limit, perEndpoint } = claim;
    if (limit <= 0) return [];
    // Nothing is taken from an endpoint beyond perEndpoint, nor beyond limit: more need not be counted.
    const cap = Math.min(limit, perEndpoint ?? limit);
    const due = await dueEndpoints(this.session.db, now, cap);
    if (due.length === 0) return [];
    const order = fairOrder(due, await inFlight(this.session.db, now), perEndpoint);
    if (order.length === 0) return [];
    return this.session.transaction(async ({ db, backend }) => {
      const endpoints =
        backend.kind === 'postgres' ? await lockEndpoints(db, order, limit) : order.slice(0, limit);
      if (endpoints.length === 0) return [];
      const picks = fairPicks(
        await dueEndpoints(db, now, cap, endpoints),
        await inFlight(db, now),
        limit,
        perEndpoint,
      );
      const ids = await oldestDue(db, now, picks);
      if (ids.length === 0) return [];
      await db
        .updateTable('deliveries')
        .set({ lease_owner: lease, lease_expires_at: leaseUntil })
        .where('id', 'in', ids)
        .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
        .execute();
      const rows = await this.withEvent(db)
        .select('webhook_events.payload')
        .where('deliveries.id', 'in', ids)
        .where('deliveries.lease_owner', '=', lease)
        .orderBy('deliveries.next_attempt_at')
        .execute();
      return rows.map((row) => ({ ...toDelivery(row), payload: row.payload, lease }));
    });
  }

  async backOff(webhookId: string, until: string | null): Promise<void> {
    if (until === null) {
      await this.session.db.deleteFrom('webhook_backoffs').where('webhook_id', '=', webhookId).execute();
      return;
    }
    await this.session.db
      .insertInto('webhook_backoffs')
      .values({ webhook_id: webhookId, backoff_until: until })
      .onConflict((conflict) => conflict.column('webhook_id').doUpdateSet({ backoff_until: until }))
      .execute();
  }

  async settle(
    id: string,
    lease: string,
    attempt: DeliveryAttemptRecord,
    outcome: DeliveryOutcome,
  ): Promise<boolean> {
    return this.session.write(undefined, async (db) => {
      const result = await db
        .updateTable('deliveries')
        .set({
          status: outcome.status,
          attempts: attempt.attempt,
          next_attempt_at: outcome.nextAttemptAt,
          lease_owner: null,
          lease_expires_at: null,
          response_status: attempt.responseStatus,
          duration_ms: attempt.durationMs,
          error: attempt.error,
          last_attempt_at: attempt.attemptedAt,
        })
        .where('id', '=', id)
        .where('lease_owner', '=', lease)
        .executeTakeFirst();
      if (result.numUpdatedRows === 0n) return false;
      await db
        .insertInto('delivery_attempts')
        .values({
          delivery_id: id,
          attempt: attempt.attempt,
          attempted_at: attempt.attemptedAt,
          response_status: attempt.responseStatus,
          duration_ms: attempt.durationMs,
          error: attempt.error,
        })
        .execute();
      return true;
    });
  }

  async release(id: string, lease: string): Promise<void> {
    await releaseLease(this.session, 'deliveries', id, lease);
  }

  countQueued(): Promise<{ status: DeliveryStatus; count: number }[]> {
    return countQueued(this.session, 'deliveries');
  }

  async get(
    workspaceId: string,
    webhookId: string,
    id: string,
  ): Promise<(DeliveryRecord & { payload: string; leased: boolean }) | undefined> {
    const row = await this.withEvent()
      .select('webhook_events.payload')
      .where('deliveries.workspace_id', '=', workspaceId)
      .where('deliveries.webhook_id', '=', webhookId)
      .where('deliveries.id', '=', id)
      .executeTakeFirst();
    return row && { ...toDelivery(row), payload: row.payload, leased: row.lease_owner !== null };
  }

  async attempts(deliveryId: string): Promise<DeliveryAttemptRecord[]> {
    const rows = await this.session.db
      .selectFrom('delivery_attempts')
      .selectAll()
      .where('delivery_id', '=', deliveryId)
      .orderBy('attempt')
      .execute();
    return rows.map(toAttempt);
  }

  async list(
    workspaceId: string,
    webhookId: string,
    options: { status?: DeliveryStatus | undefined; after?: ListPosition | undefined; limit: number },
  ): Promise<DeliveryRecord[]> {
    const { status, after, limit } = options;
    let query = this.withEvent()
      .where('deliveries.workspace_id', '=', workspaceId)
      .where('deliveries.webhook_id', '=', webhookId);
    if (status !== undefined) query = query.where('deliveries.status', '=', status);
    if (after !== undefined) {
      query = query.where((eb) => listedAfter(eb, 'deliveries.created_at', 'deliveries.id', after));
    }
    const rows = await query
      .orderBy('deliveries.created_at', 'desc')
      .orderBy('deliveries.id', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toDelivery);
  }

  async requeue(id: string, now: string, maxAttempts: number | null): Promise<boolean> {
    const updated = await this.session.db
      .updateTable('deliveries')
      .set({ status: 'pending', next_attempt_at: now, max_attempts: maxAttempts })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('lease_expires_at', 'is', null), eb('lease_expires_at', '<=', now)]))
      .executeTakeFirst();
    return updated.numUpdatedRows > 0n;
  }
}

/** A delivery due at `now` that no live lease holds, as SQL on the `deliveries` row named `row`. */
function dueAndFree(row: string, now: string) {
  const column = (name: string) => sql.ref(`${row}.${name}`);
  return sql`${column('next_attempt_at')} <= ${now} and (${column('lease_expires_at')} is null or ${column('lease_expires_at')} <= ${now})`;
}

/**
 * The endpoints (of `among`, when given) with deliveries due at `now` that no live lease holds, unless they
 * back off: since when the oldest waits, and how many there are, counted up to `cap`. The cost follows the
 * endpoints with queued deliveries, not the deliveries: they are found by skipping through the due-time
 * index endpoint by endpoint (a loose index scan, as a recursive query), and each is asked for its oldest
 * due delivery and at most `cap` more. A backlog of thousands behind one failing endpoint costs one probe.
 */
async function dueEndpoints(
  db: Kysely<Database>,
  now: string,
  cap: number,
  among?: readonly string[],
): Promise<DueEndpoint[]> {
  const queued =
    among === undefined
      ? sql`with recursive queued(webhook_id) as (
          select min(webhook_id) from deliveries where next_attempt_at is not null
          union all
          select (
            select min(later.webhook_id) from deliveries later
            where later.next_attempt_at is not null and later.webhook_id > queued.webhook_id
          )
          from queued where queued.webhook_id is not null
        )`
      : sql`with queued(webhook_id) as (
          select id from webhooks where id in (${sql.join(among.length === 0 ? [''] : [...among])})
        )`;
  const { rows } = await sql<{
    webhook_id: string;
    workspace_id: string;
    oldest_due: string | null;
    due: number | string;
  }>`${queued}
    select queued.webhook_id, webhooks.workspace_id,
      (
        select oldest.next_attempt_at from deliveries oldest
        where oldest.webhook_id = queued.webhook_id and ${dueAndFree('oldest', now)}
        order by oldest.next_attempt_at limit 1
      ) as oldest_due,
      (
        select count(*) from (
          select 1 as one from deliveries counted
          where counted.webhook_id = queued.webhook_id and ${dueAndFree('counted', now)}
          limit ${cap}
        ) as capped
      ) as due
    from queued join webhooks on webhooks.id = queued.webhook_id
    where not exists (
      select 1 from webhook_backoffs
      where webhook_backoffs.webhook_id = queued.webhook_id and webhook_backoffs.backoff_until > ${now}
    )`.execute(db);
  return rows.flatMap((row) =>
    row.oldest_due === null
      ? []
      : [
          {
            webhookId: row.webhook_id,
            workspaceId: row.workspace_id,
            oldestDue: row.oldest_due,
            due: Number(row.due),
          },
        ],
  );
}

/** The leases live at `now`, on every node: attempts in flight, by endpoint and by workspace. */
async function inFlight(db: Kysely<Database>, now: string): Promise<InFlight> {
  const rows = await db
    .selectFrom('deliveries')
    .select((eb) => ['workspace_id', 'webhook_id', eb.fn.countAll<number | string>().as('leased')])
    .where('lease_owner', 'is not', null)
    .where('lease_expires_at', '>', now)
    .groupBy(['workspace_id', 'webhook_id'])
    .execute();
  const endpoints = new Map<string, number>();
  const workspaces = new Map<string, number>();
  for (const row of rows) {
    const leased = Number(row.leased);
    endpoints.set(row.webhook_id, leased);
    workspaces.set(row.workspace_id, (workspaces.get(row.workspace_id) ?? 0) + leased);
  }
  return { endpoints, workspaces };
}

/**
 * Locks the rows of up to `limit` endpoints, in `order`, skipping those another transaction holds (another
 * node claiming them): PostgreSQL only, where claims run side by side. NO KEY UPDATE, the lock an update
 * takes, leaves alone the key-share locks of inserts that reference the endpoint (events being queued).
 */
async function lockEndpoints(
  db: Kysely<Database>,
  order: readonly string[],
  limit: number,
): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    select webhooks.id from unnest(cast(${[...order]} as text[])) with ordinality as wanted(id, position)
    join webhooks on webhooks.id = wanted.id
    order by wanted.position
    limit ${limit}
    for no key update of webhooks skip locked`.execute(db);
  return rows.map((row) => row.id);
}

/**
 * For each endpoint of `picks`, as many of its oldest due and free deliveries as it is named there: one
 * short index read per endpoint, however long its backlog.
 */
async function oldestDue(db: Kysely<Database>, now: string, picks: readonly string[]): Promise<string[]> {
  const wanted = new Map<string, number>();
  for (const webhookId of picks) wanted.set(webhookId, (wanted.get(webhookId) ?? 0) + 1);
  if (wanted.size === 0) return [];
  const reads = [...wanted].map(
    ([webhookId, count], index) => sql`select id from (
      select due.id from deliveries due
      where due.webhook_id = ${webhookId} and ${dueAndFree('due', now)}
      order by due.next_attempt_at, due.id limit ${count}
    ) as ${sql.raw(`endpoint_${String(index)}`)}`,
  );
  const { rows } = await sql<{ id: string }>`${sql.join(reads, sql` union all `)}`.execute(db);
  return rows.map((row) => row.id);
}
