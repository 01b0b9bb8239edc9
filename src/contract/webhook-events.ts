import { z } from 'zod';
import { KEY_KIND_LIST, type KeyKind } from '../core/key-kinds.js';
import { ROLES } from '../core/roles.js';
import { brandContextSchema } from './brand-context.js';
import { campaignSummarySchema } from './campaigns.js';
import { EMAIL_EVENT_TYPES, EMAIL_STATUSES, type EmailEventType, type EmailStatus } from './email.js';
import { KEY_VIEW_SCHEMAS } from './keys.js';
import { oauthGrantSchema } from './oauth-consent.js';
import {
  KEY_EVENTS,
  type KeyEvent,
  type KeyEventType,
  keyEventType,
  WEBHOOK_EVENT_TYPES,
  type WebhookEventType,
} from './webhooks.js';

/**
 * What each webhook event sends (docs/webhooks.md "Event schemas"): its `data`, and the envelope around it.
 * `publishEvent` is typed by these, the delivery tests validate every body the service sends against them,
 * and GET /openapi.json's `webhooks` section is generated from them. Browser-safe.
 */

const KEY_AS_LISTED = 'The key as its listing shows it: never the key itself';

function keyEventData(kind: KeyKind) {
  return z.object({ key: KEY_VIEW_SCHEMAS[kind.id] }).describe(KEY_AS_LISTED);
}

function expiringKeyEventData(kind: KeyKind) {
  return keyEventData(kind)
    .extend({
      days_before_expiry: z
        .number()
        .int()
        .positive()
        .describe(
          '14 or 3: which notice this is (a key first noticed within 3 days gets only the 3-day one)',
        ),
    })
    .describe(KEY_AS_LISTED);
}

type KeyEventDataSchemas = {
  [Event in KeyEvent as KeyEventType<Event>]: Event extends 'expiring'
    ? ReturnType<typeof expiringKeyEventData>
    : ReturnType<typeof keyEventData>;
};

/** Each kind's key in its own schema (`BrandKey`, `ApiKey`, …), `days_before_expiry` beside it in `…expiring`. */
const KEY_EVENT_DATA = Object.fromEntries(
  KEY_KIND_LIST.flatMap((kind) =>
    KEY_EVENTS.map((event) => [
      keyEventType(kind, event),
      event === 'expiring' ? expiringKeyEventData(kind) : keyEventData(kind),
    ]),
  ),
) as KeyEventDataSchemas;

/** The brand document's own fields: what `changed` can name. */
const brandFieldSchema = brandContextSchema.keyof().exclude(['workspace_id', 'updated_at', 'version']);

const brandUpdatedData = z.object({
  brand: z
    .object({ name: z.string(), version: z.number().int(), updated_at: z.string() })
    .describe('Which brand, at which version: read the brand for its content'),
  version: z
    .number()
    .int()
    .positive()
    .describe('The new version: read it pinned with `"version"` (docs/brand-versions.md "Versions")'),
  note: z.string().nullable().describe('What the author said of the change; null when they said nothing'),
  changed: z
    .array(brandFieldSchema)
    .min(1)
    .describe('The top-level fields whose content differs from the version before'),
});

const brandDraftUpdatedData = z.object({
  draft: z
    .object({
      revision: z
        .number()
        .int()
        .positive()
        .describe('The draft’s revision: its ETag is `"draft-<revision>"`'),
      base_version: z.number().int().positive().describe('The published version the draft was saved against'),
      updated_at: z.string().describe('When the draft was saved (for a discard: when it was last saved)'),
    })
    .describe('Which draft: read it at GET /api/v1/workspaces/{id}/brand/draft while it is there'),
  action: z.enum(['saved', 'discarded']).describe('saved: a new revision; discarded: it is gone unpublished'),
  changed: z
    .array(brandFieldSchema)
    .describe('The top-level fields where the draft differs from the published brand (may be empty)'),
});

const campaignEventData = z
  .object({ campaign: campaignSummarySchema })
  .describe('The campaign without its bodies: read the campaign for those');

const memberEventData = z.object({
  member: z.object({
    user_id: z.string(),
    email: z.string(),
    role: z.enum(ROLES).describe('The role they have, or had when they were removed'),
  }),
});

const oauthGrantEventData = z.object({
  grant: oauthGrantSchema
    .omit({ last_used_at: true })
    .describe('The app connection, as Agent Access lists it'),
});

const oauthGrantRevokedData = oauthGrantEventData.extend({
  reason: z
    .enum(['revoked', 'code_replayed', 'refresh_token_reused'])
    .describe(
      'revoked: by a member in Agent Access, or by the app at POST /oauth/revoke; code_replayed and refresh_token_reused: a code or refresh token was used twice, so it may have been stolen (docs/oauth.md "Tokens")',
    ),
});

const emailEventData = z.object({
  message_id: z.string().describe('em_…: the message, as the email log shows it'),
  recipient: z.string().describe('The address whose copy reached `status`'),
  status: z.enum(EMAIL_STATUSES).describe('The status reached: the event type after `email.`'),
  detail: z
    .string()
    .nullable()
    .describe('The relay’s answer, or why nothing was sent; null when the copy is queued'),
  tags: z.record(z.string(), z.string()).describe('The message’s tags, as it was sent with them'),
});

const EMAIL_EVENT_DATA = Object.fromEntries(
  EMAIL_EVENT_TYPES.map((type) => [type, emailEventData]),
) as Record<EmailEventType, typeof emailEventData>;

/** The `data` of each event type. */
export const WEBHOOK_EVENT_DATA = {
  ...KEY_EVENT_DATA,
  'brand.updated': brandUpdatedData,
  'brand.draft_updated': brandDraftUpdatedData,
  'campaign.created': campaignEventData,
  'campaign.updated': campaignEventData,
  'campaign.scheduled': campaignEventData,
  'member.added': memberEventData,
  'member.removed': memberEventData,
  'oauth_grant.created': oauthGrantEventData,
  'oauth_grant.revoked': oauthGrantRevokedData,
  ...EMAIL_EVENT_DATA,
  'webhook.test': z.object({
    webhook_id: z.string().describe('wh_…: the endpoint it was sent to'),
    message: z.string(),
  }),
} satisfies Record<WebhookEventType, z.ZodType>;

/** What an event of type `Type` says happened: what `publishEvent` takes beside the type. */
export type WebhookEventData<Type extends WebhookEventType> = z.output<(typeof WEBHOOK_EVENT_DATA)[Type]>;

const KEY_EVENT_SUMMARIES: Record<KeyEvent, (kind: KeyKind) => string> = {
  created: (kind) => `A ${kind.label} was created`,
  revoked: (kind) => `A ${kind.label} was revoked`,
  expiring: (kind) => `A ${kind.label} expires in 14 days, or in 3`,
  expired: (kind) => `A ${kind.label} has expired`,
};

const EMAIL_EVENT_SUMMARIES: Record<EmailStatus, string> = {
  queued: 'A message sent through /email/v1 was accepted: a copy is queued for a recipient',
  deferred: 'The relay deferred a recipient’s copy (4xx, or no connection): it is tried again',
  sent: 'The relay accepted a recipient’s copy (250)',
  bounced: 'The relay refused a recipient’s copy for good (5xx): the address is suppressed',
  failed: 'A recipient’s copy was still deferred when its retries ran out',
  suppressed: 'A recipient’s copy was not sent: the address bounced before',
  captured: 'A recipient’s copy stayed on this machine: no SMTP_URL is set',
};

/** One line per event type: when it is sent (docs/webhooks.md "Events" says more). */
export const WEBHOOK_EVENT_SUMMARIES: Record<WebhookEventType, string> = {
  ...Object.fromEntries(
    KEY_KIND_LIST.flatMap((kind) =>
      KEY_EVENTS.map((event) => [keyEventType(kind, event), KEY_EVENT_SUMMARIES[event](kind)]),
    ),
  ),
  ...Object.fromEntries(EMAIL_STATUSES.map((status) => [`email.${status}`, EMAIL_EVENT_SUMMARIES[status]])),
  'brand.updated':
    'A new version of the brand was published: a save with a change, a restore, a published draft or a rename',
  'brand.draft_updated':
    'While review is on: the brand draft was saved, or discarded unpublished (publishing sends brand.updated)',
  'campaign.created': 'A campaign draft was created',
  'campaign.updated': 'A campaign draft was edited',
  'campaign.scheduled': 'A campaign draft was scheduled: it is final',
  'member.added': 'An account was made a member of the workspace',
  'member.removed': 'A member was removed from the workspace',
  'oauth_grant.created': 'A member connected an app (an MCP client) to the workspace with OAuth',
  'oauth_grant.revoked': 'An app connection (OAuth grant) ended: its tokens no longer work',
  'webhook.test': 'A test event, sent on request to one endpoint, whatever it subscribes to',
} as Record<WebhookEventType, string>;

/** `brand_key.created` → `BrandKeyCreatedEvent`: the name of an event's schema in the API reference. */
export function webhookEventSchemaId(type: WebhookEventType): string {
  const words = type.split(/[._]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${words.join('')}Event`;
}

/** The body of every attempt: the event, the same for every endpoint that receives it (docs/webhooks.md "Events"). */
function eventSchema<Type extends WebhookEventType>(type: Type) {
  return z
    .object({
      id: z.string().describe('evt_…: also the webhook-id header, the same on every attempt: dedupe on it'),
      type: z.literal(type),
      timestamp: z.string().describe('When the change was made (ISO 8601, UTC)'),
      workspace_id: z.string().describe('The workspace it was made in'),
      data: WEBHOOK_EVENT_DATA[type],
    })
    .meta({ id: webhookEventSchemaId(type), description: WEBHOOK_EVENT_SUMMARIES[type] });
}

type WebhookEventSchemas = { [Type in WebhookEventType]: ReturnType<typeof eventSchema<Type>> };

/** Each event type's body, named `BrandKeyCreatedEvent`, `EmailSentEvent`, … in the API reference. */
export const WEBHOOK_EVENT_SCHEMAS = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type) => [type, eventSchema(type)]),
) as WebhookEventSchemas;

type AnyWebhookEvent = { [Type in WebhookEventType]: z.output<WebhookEventSchemas[Type]> }[WebhookEventType];

/** An event as it is sent: of one type, or (without `Type`) of any, told apart by `type`. */
export type WebhookEvent<Type extends WebhookEventType = WebhookEventType> = Extract<
  AnyWebhookEvent,
  { type: Type }
>;

/** Any event, told apart by its `type`: what a receiver parses a body with. */
export const webhookEventSchema = z.discriminatedUnion(
  'type',
  WEBHOOK_EVENT_TYPES.map((type) => WEBHOOK_EVENT_SCHEMAS[type]) as [
    WebhookEventSchemas[WebhookEventType],
    ...WebhookEventSchemas[WebhookEventType][],
  ],
) as unknown as z.ZodType<WebhookEvent>;
