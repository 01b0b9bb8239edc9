import { ALL_EVENTS, type EventEnvelope, type WebhookEventType } from '../contract/webhooks.js';
import { newId } from '../core/base62.js';
import type { Repositories, WebhookRecord } from '../store/store.js';

/** The repositories publishing an event writes to: call it with the transaction of the change it reports. */
export type EventStore = Pick<Repositories, 'webhooks' | 'deliveries'>;
/** What a use case that publishes events adds to its `Deps`. */
export type EventRepositories = keyof EventStore;

export interface PublishedEvent {
  workspaceId: string;
  type: WebhookEventType;
  /** What happened, never a secret (README "Webhooks", events). */
  data: Record<string, unknown>;
}

export function subscribes(webhook: Pick<WebhookRecord, 'events'>, type: WebhookEventType): boolean {
  return webhook.events.includes(ALL_EVENTS) || webhook.events.includes(type);
}

/**
 * Queues the event for each of `webhooks`: one event, one delivery per endpoint. Inside the change's
 * transaction this is the outbox: the event goes out if and only if the change commits.
 */
export async function enqueueEvent(
  store: EventStore,
  at: string,
  event: PublishedEvent,
  webhooks: readonly WebhookRecord[],
): Promise<{ eventId: string; deliveryIds: string[] } | undefined> {
  if (webhooks.length === 0) return undefined;
  const envelope: EventEnvelope = {
    id: newId('evt'),
    type: event.type,
    timestamp: at,
    workspace_id: event.workspaceId,
    data: event.data,
  };
  const deliveries = webhooks.map((webhook) => ({ id: newId('dlv'), webhookId: webhook.id }));
  await store.deliveries.enqueue(
    {
      id: envelope.id,
      workspaceId: event.workspaceId,
      type: event.type,
      payload: JSON.stringify(envelope),
      createdAt: at,
    },
    deliveries,
  );
  return { eventId: envelope.id, deliveryIds: deliveries.map((delivery) => delivery.id) };
}

/** Queues the event for every enabled endpoint of the workspace that subscribes to its type. */
export async function publishEvent(store: EventStore, at: string, event: PublishedEvent): Promise<void> {
  const webhooks = await store.webhooks.list(event.workspaceId);
  await enqueueEvent(
    store,
    at,
    event,
    webhooks.filter((webhook) => webhook.disabledAt === null && subscribes(webhook, event.type)),
  );
}
