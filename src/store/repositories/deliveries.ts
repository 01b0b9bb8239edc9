import type { Selectable } from 'kysely';
import type { DeliveryStatus } from '../../contract/webhooks.js';
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
import { claimDue, type QueueClaim, countQueued, releaseLease } from './queue-claim.js';

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

  async claim(claim: QueueClaim): Promise<ClaimedDelivery[]> {
    return claimDue(this.session, 'deliveries', claim, async (db, ids) => {
      const rows = await this.withEvent(db)
        .select('webhook_events.payload')
        .where('deliveries.id', 'in', ids)
        .orderBy('deliveries.next_attempt_at')
        .execute();
      return rows.map((row) => ({ ...toDelivery(row), payload: row.payload, lease: claim.lease }));
    });
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
