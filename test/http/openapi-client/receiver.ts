/*
 * A webhook receiver's handling of events, written as a user of the API would write it: with the types
 * openapi-typescript generates from the `webhooks` of GET /openapi.json, and no cast. Type-checked by
 * test/http/openapi-client.test.ts beside flow.ts; outside that test `brand-context-api` does not exist.
 */
import type { webhooks } from 'brand-context-api';

type EventType = keyof webhooks;
type Delivery<Type extends EventType> = webhooks[Type]['post'];

/** Any event the service sends, told apart by `type`. */
export type BrandContextEvent = {
  [Type in EventType]: Delivery<Type>['requestBody']['content']['application/json'];
}[EventType];

/** The Standard Webhooks headers every delivery carries (the same for every type). */
export type DeliveryHeaders = Delivery<'webhook.test'>['parameters']['header'];

/** Where to dedupe, and what an event says, once its signature is verified. */
export function handle(
  headers: DeliveryHeaders,
  event: BrandContextEvent,
): { dedupeOn: string; said: string } {
  return { dedupeOn: headers['webhook-id'], said: describe(event) };
}

function describe(event: BrandContextEvent): string {
  switch (event.type) {
    case 'brand.updated':
      return `${event.data.brand.name} is at version ${String(event.data.brand.version)}: ${event.data.changed.join(', ')} changed`;
    case 'brand_key.expiring':
    case 'api_key.expiring':
    case 'email_key.expiring':
      return `${event.data.key.name} expires in ${String(event.data.days_before_expiry)} days`;
    case 'campaign.scheduled':
      return `${event.data.campaign.name} is ${event.data.campaign.status}`;
    case 'member.added':
    case 'member.removed':
      return `${event.data.member.email} (${event.data.member.role})`;
    case 'email.bounced':
      return `${event.data.recipient} bounced: ${event.data.detail ?? ''}`;
    case 'webhook.test':
      return `a test of ${event.data.webhook_id}`;
    default:
      return `${event.type} at ${event.timestamp}`;
  }
}
