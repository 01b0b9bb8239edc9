import { z } from 'zod';
import { listedCreatorSchema } from './credential-creator.js';
import { EMAIL_EVENT_TYPES } from './email.js';
import { singleLine } from '../core/inputs.js';
import { KEY_KIND_LIST, type KEY_KINDS, type KeyKind, type KeyKindId } from '../core/key-kinds.js';

/**
 * Webhooks (docs/webhooks.md "Webhooks"): the endpoints a workspace registers, the events they receive, and the log of
 * deliveries. Browser-safe: the console builds its event picker and delivery log from these.
 */

export const KEY_EVENTS = ['created', 'revoked', 'expiring', 'expired'] as const;
export type KeyEvent = (typeof KEY_EVENTS)[number];
/** The types of one key event, of every kind: `keyEventType` gives `brand_key.created | api_key.created | …`. */
export type KeyEventType<Event extends KeyEvent = KeyEvent> =
  `${(typeof KEY_KINDS)[KeyKindId]['auditTarget']}.${Event}`;

/** A key kind's events are named after its audit target: `brand_key.created`, `api_key.expiring`, … */
export function keyEventType<Event extends KeyEvent>(kind: KeyKind, event: Event): KeyEventType<Event> {
  return `${kind.auditTarget}.${event}` as KeyEventType<Event>;
}

const KEY_EVENT_TYPES = KEY_KIND_LIST.flatMap((kind) => KEY_EVENTS.map((event) => keyEventType(kind, event)));

/** Every event an endpoint can subscribe to, in the order docs/webhooks.md and the console list them. */
export const WEBHOOK_EVENT_TYPES = [
  ...KEY_EVENT_TYPES,
  'brand.updated',
  'brand.draft_updated',
  'campaign.created',
  'campaign.updated',
  'campaign.scheduled',
  'member.added',
  'member.removed',
  'oauth_grant.created',
  'oauth_grant.revoked',
  ...EMAIL_EVENT_TYPES,
  'webhook.test',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** Subscribes an endpoint to every event, including those added later. */
export const ALL_EVENTS = '*';

export const WEBHOOK_LIMITS = { url: 2048, description: 500 } as const;

const eventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES);

/** What is wrong with `events` when neither form fits (zod's own word for a failed union is "Invalid input"). */
function eventsIssue(input: unknown): string {
  // A custom message replaces zod's for every issue: a missing field is said as src/core/zod-messages.ts says it.
  if (input === undefined) return 'is required';
  if (!Array.isArray(input)) return 'must be a list of event types, or ["*"] for every event';
  const unknown = input.filter(
    (event) => event !== ALL_EVENTS && !(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(event),
  );
  if (unknown.length > 0) {
    return `names unknown event types (${unknown.map((event) => JSON.stringify(event)).join(', ')}); the types are ${WEBHOOK_EVENT_TYPES.join(', ')}, or "*" for every event`;
  }
  if (input.includes(ALL_EVENTS)) return '"*" (every event) must be the only entry when it is given';
  // Known types only, yet more of them than there are types.
  return 'must not name an event twice';
}

export const webhookEventsSchema = z
  .union(
    [
      z.tuple([z.literal(ALL_EVENTS)]),
      z
        .array(eventTypeSchema)
        .min(1, `must name at least one event type, or "${ALL_EVENTS}"`)
        .max(WEBHOOK_EVENT_TYPES.length),
    ],
    { error: (issue) => eventsIssue(issue.input) },
  )
  .refine((events) => new Set(events).size === events.length, 'must not name an event twice')
  .describe('The event types to receive, or ["*"] for every event');
export type WebhookEvents = z.output<typeof webhookEventsSchema>;

const urlSchema = z
  .string()
  .min(1)
  .max(WEBHOOK_LIMITS.url)
  .describe('Where events are POSTed: https:// with a public address');
/** One line: listings show it beside the URL. */
const descriptionSchema = singleLine(z.string().max(WEBHOOK_LIMITS.description));

export const newWebhookSchema = z.strictObject({
  url: urlSchema,
  events: webhookEventsSchema,
  description: descriptionSchema.optional(),
});
export type NewWebhook = z.output<typeof newWebhookSchema>;

export const webhookChangesSchema = z
  .strictObject({
    url: urlSchema,
    events: webhookEventsSchema,
    enabled: z
      .boolean()
      .describe('false pauses deliveries; true resumes them (and clears an automatic disable)'),
    description: descriptionSchema.nullable(),
  })
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, {
    error: 'must change at least one field',
    // An unknown field is the whole story; "change at least one" on top of it would only confuse.
    when: (payload) => payload.issues.length === 0,
  });
export type WebhookChanges = z.output<typeof webhookChangesSchema>;

/** Why an endpoint is disabled: by a person, or by the service after 5 days of failed deliveries. */
export const DISABLED_REASONS = ['manual', 'failing'] as const;
export type DisabledReason = (typeof DISABLED_REASONS)[number];

export const webhookSchema = z
  .object({
    id: z.string().describe('wh_…'),
    workspace_id: z.string(),
    url: z.string(),
    events: z.array(z.string()),
    enabled: z.boolean(),
    disabled_reason: z
      .enum(DISABLED_REASONS)
      .nullable()
      .describe(
        '"manual": an owner or admin disabled it (or removed its creator with revoke_credentials); "failing": every delivery failed for 5 days, so the service disabled it',
      ),
    description: z.string().nullable(),
    failing_since: z
      .string()
      .nullable()
      .describe('When the current run of failed deliveries began; null while deliveries succeed'),
    created_by: z
      .string()
      .nullable()
      .describe('The user id of whoever created it; null for the operator (CLI) or when not recorded'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Webhook' });
export type Webhook = z.output<typeof webhookSchema>;

/** An endpoint in the listing: with who created it, marked when they have left the workspace. */
export const listedWebhookSchema = webhookSchema
  .extend({ creator: listedCreatorSchema })
  .meta({ id: 'ListedWebhook' });
export type ListedWebhook = z.output<typeof listedWebhookSchema>;

export const webhookListSchema = z.object({ webhooks: z.array(listedWebhookSchema) });

export const webhookSecretSchema = z
  .object({
    secret: z.string().describe('whsec_ and base64: verify signatures with it (Standard Webhooks)'),
    previous_secret_expires_at: z
      .string()
      .nullable()
      .describe('Until then the previous secret signs beside this one'),
  })
  .meta({ id: 'WebhookSecret' });
export type WebhookSecret = z.output<typeof webhookSecretSchema>;

/** The create call's answer: the endpoint, with its signing secret. */
export const createdWebhookSchema = webhookSchema
  .extend({ secret: z.string().describe('whsec_…: also readable later with GET …/secret') })
  .meta({ id: 'CreatedWebhook' });
export type CreatedWebhook = z.output<typeof createdWebhookSchema>;

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'retrying', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const deliverySchema = z
  .object({
    id: z.string().describe('dlv_…'),
    webhook_id: z.string(),
    event_id: z.string().describe('evt_…: the webhook-id header of every attempt'),
    event_type: z.string(),
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int().describe('Attempts made so far'),
    response_status: z.number().int().nullable().describe('The HTTP status of the last attempt'),
    duration_ms: z.number().int().nullable().describe('How long the last attempt took'),
    error: z.string().nullable().describe('Why the last attempt failed, when it did'),
    created_at: z.string(),
    last_attempt_at: z.string().nullable(),
    next_attempt_at: z.string().nullable().describe('When the next attempt is due; null once it is settled'),
  })
  .meta({ id: 'WebhookDelivery' });
export type Delivery = z.output<typeof deliverySchema>;

export const deliveryAttemptSchema = z.object({
  attempt: z.number().int(),
  attempted_at: z.string(),
  response_status: z.number().int().nullable(),
  duration_ms: z.number().int(),
  error: z.string().nullable(),
});
export type DeliveryAttempt = z.output<typeof deliveryAttemptSchema>;

export const deliveryDetailSchema = deliverySchema
  .extend({
    payload: z.string().describe('The body every attempt sent, byte for byte'),
    history: z.array(deliveryAttemptSchema).describe('Every attempt, oldest first'),
  })
  .meta({ id: 'WebhookDeliveryDetail' });
export type DeliveryDetail = z.output<typeof deliveryDetailSchema>;

export const deliveryPageSchema = z.object({
  items: z.array(deliverySchema),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass back as cursor for the next (older) page; null on the last'),
});
export type DeliveryPage = z.output<typeof deliveryPageSchema>;

export const queuedDeliverySchema = z
  .object({ delivery_id: z.string(), event_id: z.string(), status: z.enum(DELIVERY_STATUSES) })
  .meta({ id: 'QueuedDelivery' });
export type QueuedDelivery = z.output<typeof queuedDeliverySchema>;
