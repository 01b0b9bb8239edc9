import type { WebhookEventData } from '../../contract/webhook-events.js';
import { ALL_EVENTS, type WebhookEventType } from '../../contract/webhooks.js';
import { newId } from '../../core/base62.js';
import type { Repositories, WebhookRecord } from '../../store/store.js';

/** The repositories publishing an event writes to: call it with the transaction of the change it reports. */
type EventStore = Pick<Repositories, 'webhooks' | 'deliveries'>;
/** What a use case that publishes events adds to its `Deps`. */
export type EventRepositories = keyof EventStore;

/**
 * An event to publish: its type and the data of that type (src/contract/webhook-events.ts), so that data of
 * another shape does not compile. One member per type: a `type` that may be any of several must come with
 * data that fits each.
 */
export type PublishedEvent = {
  [Type in WebhookEventType]: {
    workspaceId: string;
    type: Type;
    /** What happened, never a secret (docs/webhooks.md "Events"). */
    data: WebhookEventData<Type>;
  };
}[WebhookEventType];

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
  // The envelope of src/contract/webhook-events.ts, in the order receivers see its fields.
  const envelope = {
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
