/**
 * Transactional email (docs/email.md "Transactional email"): messages a workspace sends through /email/v1 with its
 * transactional email key, and the message log its owners and admins read in the console. Sending queues
 * the message (src/services/email/queue.ts); the delivery worker sends it.
 */
import { createHash } from 'node:crypto';
import type {
  CapturedEmail,
  EmailMessage,
  EmailMessagePage,
  EmailMessageSummary,
  EmailStatus,
  NewEmailMessage,
  ParsedAddress,
  QueuedEmail,
} from '../../contract/email.js';
import { AppError } from '../../core/errors.js';
import { isUniqueViolation } from '../../store/errors.js';
import type {
  EmailEventRecord,
  EmailMessageWithRecipients,
  IdempotencyRecord,
  Repositories,
} from '../../store/store.js';
import { timeOrderedPage } from '../shared/cursors.js';
import type { Deps } from '../shared/deps.js';
import { type EmailDraft, openEmailBody, queueEmail } from './queue.js';
import { publishEmailEvent } from './events.js';
import type { EventRepositories } from '../webhooks/events.js';
import type { SecretBox } from '../shared/secret-box.js';

/** How long an Idempotency-Key names its request (docs/email.md "Transactional email", idempotency). */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Where a message log is read: the email API sees the messages sent through it, the console every one. */
export interface MessageScope {
  workspaceId: string;
  source?: 'api' | undefined;
}

/** What POST /email/v1/messages answers, and whether it is the answer to an earlier request. */
export interface SentEmail {
  message: QueuedEmail;
  replayed: boolean;
}

/** An Idempotency-Key, and the hash of the request it came with. */
interface Idempotency {
  key: string;
  requestHash: string;
}

function toEmailSummaryView(record: EmailMessageWithRecipients): EmailMessageSummary {
  return {
    id: record.id,
    workspace_id: record.workspaceId,
    from: record.from,
    subject: record.subject,
    status: record.status,
    recipients: record.recipients.map((recipient) => ({
      email: recipient.email,
      field: recipient.field,
      status: recipient.status,
    })),
    tags: record.tags,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

function toEmailMessageView(record: EmailMessageWithRecipients, events: EmailEventRecord[]): EmailMessage {
  return {
    ...toEmailSummaryView(record),
    reply_to: record.replyTo,
    headers: record.headers,
    events: events.map((event) => ({
      type: event.type,
      at: event.at,
      recipient: event.recipient,
      detail: event.detail,
    })),
  };
}

/** A captured message as the development mailbox shows it: its history, and its bodies opened. */
export async function readCapturedEmail(
  store: Pick<Repositories, 'email'>,
  secrets: SecretBox,
  message: EmailMessageWithRecipients,
): Promise<CapturedEmail> {
  const body = openEmailBody(secrets, message);
  const events = await store.email.events(message.id);
  return {
    ...toEmailMessageView(message, events),
    to: message.toHeader,
    cc: message.ccHeader,
    html: body.html,
    text: body.text,
  };
}

/** A display name as a header carries it: bare when it is words, else quoted (RFC 5322 §3.2.4). */
function headerName(name: string): string {
  return /^[\w !#$%&'*+\-/=?^`{|}~]+$/.test(name) ? name : `"${name.replaceAll('\\', '\\\\')}"`;
}

/** `Name <address>`, or the address alone. */
function headerAddress(parsed: ParsedAddress): string {
  return parsed.name === undefined ? parsed.address : `${headerName(parsed.name)} <${parsed.address}>`;
}

/** JSON with every object's keys sorted: the same request, however its fields were ordered, hashes alike. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${fields.map(([name, field]) => `${JSON.stringify(name)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The message to queue: each address once, in the first field that names it (to, then cc, then bcc), so
 * nobody gets two copies; the To and Cc headers keep the display names, the queue the bare addresses.
 */
function draftOf(workspaceId: string, input: NewEmailMessage): EmailDraft {
  const seen = new Set<string>();
  const firstTime = (parsed: ParsedAddress): boolean => {
    if (seen.has(parsed.address)) return false;
    seen.add(parsed.address);
    return true;
  };
  const to = input.to.filter(firstTime);
  const cc = (input.cc ?? []).filter(firstTime);
  const bcc = (input.bcc ?? []).filter(firstTime);
  const addresses = (list: ParsedAddress[]) => list.map((parsed) => parsed.address);
  return {
    workspaceId,
    source: 'api',
    from: headerAddress(input.from),
    to: addresses(to),
    cc: addresses(cc),
    bcc: addresses(bcc),
    toHeader: to.map(headerAddress),
    ccHeader: cc.map(headerAddress),
    replyTo: (input.reply_to ?? []).map(headerAddress),
    subject: input.subject,
    html: input.html,
    text: input.text,
    headers: input.headers ?? {},
    tags: input.tags ?? {},
  };
}

/** What a display name of from or reply_to may not hold once NFKC folds look-alikes (＠, ﹫, ＜) into it. */
const ADDRESS_LIKE = /[@<>]/;
/** `%` and `!` in a local part: source routes (`user%host@relay`, `host!user@relay`) some relays still follow. */
const SOURCE_ROUTE = /[%!]/;

/**
 * 422 `sender_misleading` for a sender that would pass for someone else (docs/email.md "Transactional email"): a
 * display name of from or reply_to that reads as an address, as in `"ceo@evil.test" <hello@acme.example>`
 * (mail clients show the name, not the address), or a from address routed on past its allowed domain.
 */
function refuseMisleadingSender(input: NewEmailMessage): void {
  const named: [field: string, parsed: ParsedAddress][] = [
    ['from', input.from],
    ...(input.reply_to ?? []).map((parsed): [string, ParsedAddress] => ['reply_to', parsed]),
  ];
  for (const [field, { name }] of named) {
    if (name !== undefined && ADDRESS_LIKE.test(name.normalize('NFKC'))) {
      throw new AppError('sender_misleading', { reason: 'display_name', field, name });
    }
  }
  const { address } = input.from;
  if (SOURCE_ROUTE.test(address.slice(0, address.lastIndexOf('@')))) {
    throw new AppError('sender_misleading', { reason: 'source_route', address });
  }
}

/** 422 `sender_not_allowed` unless the workspace allows the address, or its domain (senders are lower case). */
async function requireAllowedSender(
  store: Pick<Repositories, 'email'>,
  workspaceId: string,
  from: ParsedAddress,
): Promise<void> {
  const domain = from.address.slice(from.address.lastIndexOf('@') + 1);
  const senders = await store.email.listSenders(workspaceId);
  const allowed = senders.some(({ sender }) => {
    const lower = sender.toLowerCase();
    return lower === from.address || lower === domain;
  });
  if (!allowed) throw new AppError('sender_not_allowed', { from: from.address });
}

/** What sealing and opening a message's bodies takes: the box, its key loaded once. */
interface SecretsDeps {
  secrets: SecretBox;
}

/**
 * Queues `input` from the workspace, one job per distinct recipient, its body sealed, and
 * publishes `email.queued` (or `email.suppressed`) for each. With `idempotencyKey`, a repeat of the same
 * request within 24 hours answers the first answer and queues nothing; the key with another request is refused.
 */
export async function sendEmail(
  deps: Deps<'email' | EventRepositories> & SecretsDeps,
  workspaceId: string,
  input: NewEmailMessage,
  idempotencyKey?: string,
): Promise<SentEmail> {
  refuseMisleadingSender(input);
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  const since = new Date(now - IDEMPOTENCY_WINDOW_MS).toISOString();
  const idempotency: Idempotency | undefined =
    idempotencyKey === undefined
      ? undefined
      : {
          key: idempotencyKey,
          requestHash: createHash('sha256').update(canonicalJson(input)).digest('hex'),
        };
  try {
    return await deps.store.transaction(async (tx) => {
      const earlier = idempotency && (await tx.email.findIdempotencyKey(workspaceId, idempotency.key, since));
      if (earlier) return replay(tx, earlier, idempotency);
      await requireAllowedSender(tx, workspaceId, input.from);
      const { message, recipients } = await queueEmail(tx, deps.secrets, at, draftOf(workspaceId, input));
      if (idempotency) {
        await tx.email.recordIdempotencyKey(
          { workspaceId, ...idempotency, messageId: message.id, createdAt: at },
          since,
        );
      }
      for (const recipient of recipients)
        await publishEmailEvent(tx, at, message, recipient.email, recipient.status, recipient.lastResponse);
      return { message: { id: message.id, status: message.status }, replayed: false };
    });
  } catch (error) {
    // PostgreSQL: a concurrent request with the same key committed first, and this one's insert waited
    // for it on the primary key (SQLite runs the two one after the other, so the second finds the key).
    if (idempotency === undefined || !isUniqueViolation(error)) throw error;
    const earlier = await deps.store.email.findIdempotencyKey(workspaceId, idempotency.key, since);
    if (!earlier) throw error;
    return replay(deps.store, earlier, idempotency);
  }
}

/** The message with its recipients and every status change. */
export async function getEmail(
  deps: Deps<'email'>,
  scope: MessageScope,
  messageId: string,
): Promise<EmailMessage> {
  const message = await deps.store.email.get(scope.workspaceId, messageId);
  if (!message || (scope.source !== undefined && message.source !== scope.source))
    throw new AppError('email_message_not_found', { reason: 'unknown', messageId });
  return toEmailMessageView(message, await deps.store.email.events(messageId));
}

/** One page of the message log, newest first. */
export async function listEmails(
  deps: Deps<'email'>,
  scope: MessageScope,
  page: { limit: number; cursor?: string | undefined; status?: EmailStatus | undefined },
): Promise<EmailMessagePage> {
  const { records, next_cursor } = await timeOrderedPage(page, (after, limit) =>
    deps.store.email.list(scope.workspaceId, {
      status: page.status,
      source: scope.source,
      after,
      limit,
    }),
  );
  return { items: records.map(toEmailSummaryView), next_cursor };
}

/**
 * A captured message (no SMTP_URL: it never left this machine) with its bodies: the development mailbox.
 * Only captured ones: a message that was sent may carry a one-time link its recipient has not used yet.
 */
export async function getCapturedEmail(
  deps: Deps<'email'> & SecretsDeps,
  workspaceId: string,
  messageId: string,
): Promise<CapturedEmail> {
  const message = await deps.store.email.get(workspaceId, messageId);
  if (message?.status !== 'captured') {
    throw new AppError(
      'email_message_not_found',
      message === undefined
        ? { reason: 'unknown', messageId }
        : { reason: 'not_captured', messageId, status: message.status },
      {
        advice:
          'Only captured messages (queued while no SMTP_URL was set) can be read with their bodies; list them with status=captured.',
      },
    );
  }
  return readCapturedEmail(deps.store, deps.secrets, message);
}

/**
 * The first answer to the request `earlier` recorded, if this is the same request; 422 otherwise. It said
 * `suppressed` when every recipient was (so does a replay once every address has bounced meanwhile).
 */
async function replay(
  store: Pick<Repositories, 'email'>,
  earlier: IdempotencyRecord,
  request: Idempotency,
): Promise<SentEmail> {
  if (earlier.requestHash !== request.requestHash)
    throw new AppError('idempotency_key_reused', { key: request.key });
  const message = await store.email.get(earlier.workspaceId, earlier.messageId);
  const suppressed = message?.recipients.every((recipient) => recipient.status === 'suppressed') ?? false;
  return { message: { id: earlier.messageId, status: suppressed ? 'suppressed' : 'queued' }, replayed: true };
}
