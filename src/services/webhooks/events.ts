import { ALL_EVENTS, type EventEnvelope, type WebhookEventType } from '../../contract/webhooks.js';
import { newId } from '../../core/base62.js';
import type { Repositories, WebhookRecord } from '../../store/store.js';

/** The repositories publishing an event writes to: call it with the transaction of the change it reports. */
type EventStore = Pick<Repositories, 'webhooks' | 'deliveries'>;
/** What a use case that publishes events adds to its `Deps`. */
export type EventRepositories = keyof EventStore;

export interface PublishedEvent {
  workspaceId: string;
  type: WebhookEventType;
  /** What happened, never a secret (docs/webhooks.md "Webhooks", events). */
  data: Record<string, unknown>;
}

function subscribes(webhook: Pick<WebhookRecord, 'events'>, type: WebhookEventType): boolean {
  return webhook.events.includes(ALL_EVENTS) || webhook.events.includes(type);
}

/**
 * Queues the event with the given deliveries (one per endpoint) and returns its id. Inside the change's
 * transaction this is the outbox: the event goes out if and only if the change commits.
 */
export async function enqueueEvent(
  store: EventStore,
  at: string,
  event: PublishedEvent,
  deliveries: readonly { id: string; webhookId: string }[],
): Promise<string> {
  const envelope: EventEnvelope = {
    id: newId('evt'),
    type: event.type,
    timestamp: at,
    workspace_id: event.workspaceId,
    data: event.data,
  };
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
  return envelope.id;
}

/** Queues the event for every enabled endpoint of the workspace that subscribes to its type, if any does. */
export async function publishEvent(store: EventStore, at: string, event: PublishedEvent): Promise<void> {
  const subscribers = (await store.webhooks.list(event.workspaceId)).filter(
    (webhook) => webhook.disabledAt === null && subscribes(webhook, event.type),
  );
  if (subscribers.length === 0) return;
  await enqueueEvent(
    store,
    at,
    event,
    subscribers.map((webhook) => ({ id: newId('dlv'), webhookId: webhook.id })),
  );
}
