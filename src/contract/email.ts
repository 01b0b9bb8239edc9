import { z } from 'zod';
import { singleLine, singleLineIssue } from '../core/inputs.js';

/**
 * Transactional email (docs/email.md "Transactional email"): what `POST /email/v1/messages` takes, what the
 * message log shows, and the statuses a message and each of its recipients go through. Browser-safe: the
 * console's Email page builds its filters and badges from these.
 */

export const EMAIL_LIMITS = {
  /** to, cc and bcc together. */
  recipients: 50,
  replyTo: 10,
  /** RFC 5322's line limit: a subject is one line. */
  subject: 998,
  /** Characters of html and of text, each. */
  body: 2 * 1024 * 1024,
  headers: 20,
  headerValue: 1000,
  tags: 10,
  tagValue: 256,
  address: 320,
  displayName: 200,
  idempotencyKey: 255,
} as const;

/** Bytes of a whole request to POST /email/v1/messages: both bodies at their limit, and the rest. */
export const EMAIL_REQUEST_LIMIT = 5 * 1024 * 1024;

/**
 * Where a recipient's message is (docs/email.md "Transactional email", statuses):
 * - `queued`: accepted, not yet attempted;
 * - `deferred`: the relay answered 4xx or could not be reached; it is tried again;
 * - `sent`: the relay answered 250;
 * - `bounced`: the relay answered 5xx; the address is now suppressed for the workspace;
 * - `failed`: still deferred when the retries ran out;
 * - `suppressed`: the address bounced before, so nothing was sent;
 * - `captured`: no SMTP_URL is set; the message stayed on this machine (the console's mailbox).
 */
export const EMAIL_STATUSES = [
  'queued',
  'deferred',
  'sent',
  'bounced',
  'failed',
  'suppressed',
  'captured',
] as const;
export type EmailStatus = (typeof EMAIL_STATUSES)[number];

/**
 * A message's status, from its recipients': still `deferred` or `queued` while any recipient is; once all
 * are settled, the gravest outcome any of them had, so a filter on `bounced` finds every message with a
 * bounce. Each recipient's own status is in `recipients`.
 */
export function messageStatus(recipients: readonly EmailStatus[]): EmailStatus {
  for (const status of ['deferred', 'queued', 'failed', 'bounced', 'suppressed', 'sent'] as const) {
    if (recipients.includes(status)) return status;
  }
  return 'captured';
}

/** The `email.*` webhook events: one per status a recipient reaches (docs/webhooks.md "Webhooks", events). */
export const EMAIL_EVENT_TYPES = EMAIL_STATUSES.map((status) => `email.${status}` as const);
export type EmailEventType = (typeof EMAIL_EVENT_TYPES)[number];

/** A header field's text: one line (a line break would start a header of its own), no control characters. */
function headerText(max: number) {
  return singleLine(z.string().max(max));
}

const ADDR_SPEC = z.email({ pattern: z.regexes.html5Email });
const ANGLE_ADDR = /^(.*?)\s*<([^<>]*)>$/s;

/** An address as a header shows it: the address alone, or `Name <address>`. */
export interface ParsedAddress {
  address: string;
  name: string | undefined;
}

/**
 * `a@example.com`, `Ada <a@example.com>` or `"Lovelace, Ada" <a@example.com>`. Parsed here rather than by the
 * mailer so that what is refused is refused before anything is queued, and named precisely.
 */
export function parseAddress(text: string): ParsedAddress | string {
  const notOneLine = singleLineIssue(text);
  if (notOneLine !== undefined) return notOneLine;
  const trimmed = text.trim();
  const angle = ANGLE_ADDR.exec(trimmed);
  let name = angle ? angle[1]?.trim() : undefined;
  const address = (angle ? angle[2] : trimmed)?.trim() ?? '';
  if (name?.startsWith('"') && name.endsWith('"') && name.length >= 2) name = name.slice(1, -1);
  if (name !== undefined && /["<>]/.test(name)) return 'has a display name with " < or > in it';
  if (name !== undefined && name.length > EMAIL_LIMITS.displayName) {
    return `has a display name longer than ${EMAIL_LIMITS.displayName} characters`;
  }
  if (address.length > EMAIL_LIMITS.address || !ADDR_SPEC.safeParse(address).success) {
    return 'must be an email address, as a@example.com or Name <a@example.com>';
  }
  return { address: address.toLowerCase(), name: name === '' ? undefined : name };
}

const addressSchema = z
  .string()
  .max(EMAIL_LIMITS.address + EMAIL_LIMITS.displayName + 4)
  .transform((text, context) => {
    const parsed = parseAddress(text);
    if (typeof parsed === 'string') {
      context.addIssue({ code: 'custom', message: parsed });
      return z.NEVER;
    }
    return parsed;
  });

/**
 * What is wrong with an address field when neither form fits: zod's own word for a failed union is "Invalid
 * input", which would hide a line break in a display name behind it.
 */
function addressesIssue(input: unknown, max: number): string {
  // A custom message replaces zod's for every issue: a missing field is said as src/core/zod-messages.ts says it.
  if (input === undefined) return 'is required';
  if (typeof input === 'string') {
    const parsed = parseAddress(input);
    return typeof parsed === 'string' ? parsed : 'is not a valid address';
  }
  if (!Array.isArray(input)) return 'must be an address or a list of addresses';
  if (input.length > max) return `must name at most ${max} addresses`;
  for (const [index, item] of input.entries()) {
    if (typeof item !== 'string') return `item ${index + 1} must be a string`;
    const parsed = parseAddress(item);
    if (typeof parsed === 'string') return `item ${index + 1} ${parsed}`;
  }
  return 'is not a valid list of addresses';
}

/** One address or a list of them. */
function addressesSchema(max: number) {
  return z
    .union([addressSchema.transform((one) => [one]), z.array(addressSchema).max(max)], {
      error: (issue) => addressesIssue(issue.input, max),
    })
    .describe('An address ("a@example.com" or "Ada <a@example.com>"), or a list of them');
}

/** Header names a client may set: X- headers only (in any case), and none this service writes itself. */
const HEADER_NAME = /^X-[A-Za-z0-9-]{1,76}$/i;
/** As the mailer writes it (nodemailer spells a final -ID in capitals), so docs and mail agree. */
export const RESERVED_HEADER = 'X-Brand-Context-ID';

const headersSchema = z
  .record(
    z
      .string()
      .regex(HEADER_NAME, 'must be an X- header name (letters, digits and -)')
      .refine(
        (name) => name.toLowerCase() !== RESERVED_HEADER.toLowerCase(),
        `is set by this service on every message`,
      ),
    headerText(EMAIL_LIMITS.headerValue),
  )
  .refine((headers) => Object.keys(headers).length <= EMAIL_LIMITS.headers, {
    error: `must have at most ${EMAIL_LIMITS.headers} headers`,
  })
  .superRefine((headers, context) => {
    // Header names are case-insensitive: X-A and x-a are one header, which a message carries once.
    const seen = new Set<string>();
    for (const name of Object.keys(headers)) {
      if (seen.has(name.toLowerCase())) {
        context.addIssue({
          code: 'custom',
          path: [name],
          message: `duplicate header ${name} (names ignore case)`,
        });
      }
      seen.add(name.toLowerCase());
    }
  })
  .describe('Extra headers: X- names only; values one line');

const tagsSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1 to 64 letters, digits, _ or -'),
    headerText(EMAIL_LIMITS.tagValue),
  )
  .refine((tags) => Object.keys(tags).length <= EMAIL_LIMITS.tags, {
    error: `must have at most ${EMAIL_LIMITS.tags} tags`,
  })
  .describe('Your own labels, returned in the message log and every email.* event');

export const newEmailMessageSchema = z
  .strictObject({
    from: addressSchema.describe(
      'An allowed sender of the workspace ("Name <a@example.com>" or the address)',
    ),
    to: addressesSchema(EMAIL_LIMITS.recipients),
    cc: addressesSchema(EMAIL_LIMITS.recipients).optional(),
    bcc: addressesSchema(EMAIL_LIMITS.recipients).optional(),
    reply_to: addressesSchema(EMAIL_LIMITS.replyTo).optional(),
    subject: headerText(EMAIL_LIMITS.subject).min(1).describe('One line'),
    html: z.string().max(EMAIL_LIMITS.body).optional(),
    text: z.string().max(EMAIL_LIMITS.body).optional(),
    headers: headersSchema.optional(),
    tags: tagsSchema.optional(),
  })
  .superRefine((message, context) => {
    if (message.html === undefined && message.text === undefined) {
      context.addIssue({ code: 'custom', path: ['text'], message: 'or html is required (or both)' });
    }
    const all = message.to.length + (message.cc?.length ?? 0) + (message.bcc?.length ?? 0);
    if (message.to.length === 0) {
      context.addIssue({ code: 'custom', path: ['to'], message: 'must name at least one recipient' });
    } else if (all > EMAIL_LIMITS.recipients) {
      context.addIssue({
        code: 'custom',
        path: ['to'],
        message: `with cc and bcc must name at most ${EMAIL_LIMITS.recipients} recipients (${all} given)`,
      });
    }
  });
export type NewEmailMessage = z.output<typeof newEmailMessageSchema>;

export const emailRecipientSchema = z.object({
  email: z.string(),
  field: z.enum(['to', 'cc', 'bcc']),
  status: z.enum(EMAIL_STATUSES),
});
export type EmailRecipient = z.output<typeof emailRecipientSchema>;

export const emailEventSchema = z.object({
  type: z.enum(EMAIL_STATUSES).describe('The status reached'),
  at: z.string(),
  recipient: z.string().nullable().describe('Whose status changed; null for the whole message'),
  detail: z.string().nullable().describe('The relay’s answer, or why nothing was sent'),
});
export type EmailEvent = z.output<typeof emailEventSchema>;

/** A message as the log lists it: no bodies, no events. */
export const emailMessageSummarySchema = z
  .object({
    id: z.string().describe('em_…: also the X-Brand-Context-ID header of the message sent'),
    workspace_id: z.string().nullable(),
    from: z.string(),
    subject: z.string(),
    status: z.enum(EMAIL_STATUSES),
    recipients: z.array(emailRecipientSchema),
    tags: z.record(z.string(), z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'EmailMessageSummary' });
export type EmailMessageSummary = z.output<typeof emailMessageSummarySchema>;

export const emailMessageSchema = emailMessageSummarySchema
  .extend({
    reply_to: z.array(z.string()),
    headers: z.record(z.string(), z.string()),
    events: z.array(emailEventSchema).describe('Every status change, oldest first'),
  })
  .meta({ id: 'EmailMessage' });
export type EmailMessage = z.output<typeof emailMessageSchema>;

/** A captured message with its bodies: the development mailbox (no SMTP_URL). */
export const capturedEmailSchema = emailMessageSchema
  .extend({
    to: z.array(z.string()).describe('The To header as sent: `Name <address>` or the address'),
    cc: z.array(z.string()).describe('The Cc header as sent (Bcc recipients are in no header)'),
    html: z.string().nullable(),
    text: z.string().nullable(),
  })
  .meta({ id: 'CapturedEmail' });
export type CapturedEmail = z.output<typeof capturedEmailSchema>;

export const emailMessagePageSchema = z.object({
  items: z.array(emailMessageSummarySchema),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass back as cursor for the next (older) page; null on the last'),
});
export type EmailMessagePage = z.output<typeof emailMessagePageSchema>;

export const queuedEmailSchema = z
  .object({ id: z.string().describe('em_…'), status: z.enum(EMAIL_STATUSES) })
  .meta({ id: 'QueuedEmail' });
export type QueuedEmail = z.output<typeof queuedEmailSchema>;

/** An allowed sender: a whole address, or a domain all of whose addresses may send. */
export const emailSenderSchema = z
  .object({ sender: z.string(), kind: z.enum(['address', 'domain']), created_at: z.string() })
  .meta({ id: 'EmailSender' });
export type EmailSender = z.output<typeof emailSenderSchema>;

export const emailSuppressionSchema = z
  .object({
    email: z.string(),
    reason: z.literal('bounced'),
    detail: z.string().nullable().describe('The relay’s 5xx answer'),
    message_id: z.string().nullable().describe('The message that bounced'),
    created_at: z.string(),
  })
  .meta({ id: 'EmailSuppression' });
export type EmailSuppression = z.output<typeof emailSuppressionSchema>;
