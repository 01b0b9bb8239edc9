import { describe, expectTypeOf, it } from 'vitest';
import type { WebhookEventData } from '../../contract/webhook-events.js';
import type { KeyEventType } from '../../contract/webhooks.js';
import type { PublishedEvent } from './events.js';

/** An event to publish, of `Type`, with `Data`. */
interface Event<Type, Data> {
  workspaceId: string;
  type: Type;
  data: Data;
}

// Checked by the type checker (npx tsc --noEmit): publishing data of another shape does not compile.
describe('publishEvent', () => {
  it('takes each event type with its own data', () => {
    expectTypeOf<Event<'member.added', WebhookEventData<'member.added'>>>().toExtend<PublishedEvent>();
    expectTypeOf<
      Event<KeyEventType<'created'>, WebhookEventData<'brand_key.created'>>
    >().toExtend<PublishedEvent>();
    expectTypeOf<
      Event<KeyEventType<'expiring'>, WebhookEventData<'api_key.expiring'>>
    >().toExtend<PublishedEvent>();
  });

  it('refuses data of another type, data missing a field, and a value out of its type', () => {
    expectTypeOf<
      Event<'member.added', WebhookEventData<'campaign.created'>>
    >().not.toExtend<PublishedEvent>();
    // An expiry notice says how many days are left; a key's other events do not.
    expectTypeOf<
      Event<KeyEventType<'expiring'>, WebhookEventData<'brand_key.created'>>
    >().not.toExtend<PublishedEvent>();
    expectTypeOf<
      Event<'brand.updated', { brand: { name: string; version: number }; changed: ['voice'] }>
    >().not.toExtend<PublishedEvent>();
    expectTypeOf<
      Event<
        'brand.updated',
        { brand: { name: string; version: number; updated_at: string }; changed: ['nope'] }
      >
    >().not.toExtend<PublishedEvent>();
    expectTypeOf<Event<'webhook.test', Record<string, unknown>>>().not.toExtend<PublishedEvent>();
  });
});
