import { type EmailStatus, messageStatus } from '../../contract/email.js';
import { newId } from '../../core/base62.js';
import type {
  EmailEventRecord,
  EmailMessageRecord,
  EmailRecipientRecord,
  Repositories,
} from '../../store/store.js';
import type { SecretBox } from '../shared/secret-box.js';

/** Why a suppressed recipient was not sent to: when it is queued, or when it bounced meanwhile. */
export const SUPPRESSED_DETAIL = 'not sent: the address bounced before';

/**
 * Whether the workspace's suppression list applies to a message of `source`: to its product email only.
 * Account email (invites, password resets, key notices) is sent whatever the product's mail did, and its
 * bounces suppress nothing.
 */
export function isSuppressible(source: EmailMessageRecord['source']): boolean {
  return source === 'api';
}

/** A message ready to queue: its addresses already parsed, checked and lower-cased. */
export interface EmailDraft {
  workspaceId: string | null;
  source: EmailMessageRecord['source'];
  /** The From header: `Name <address>` or the address. */
  from: string;
  to: readonly string[];
  cc?: readonly string[];
  bcc?: readonly string[];
  /** Header forms of to and cc, when they carry display names; the addresses otherwise. */
  toHeader?: readonly string[];
  ccHeader?: readonly string[];
  replyTo?: readonly string[];
  subject: string;
  html?: string | undefined;
  text?: string | undefined;
  headers?: Readonly<Record<string, string>>;
  tags?: Readonly<Record<string, string>>;
}

/** What queueing one message wrote: its record, and the status each recipient started with. */
export interface QueuedMessage {
  message: EmailMessageRecord;
  recipients: EmailRecipientRecord[];
}

/** The bodies of a message as sealed into `email_messages.body`. */
export interface EmailBody {
  html: string | null;
  text: string | null;
}

/**
 * Queues `draft` for delivery (docs/email.md "Transactional email"): one queue job per recipient, due at once,
 * except recipients of the workspace's suppression list (product email only: isSuppressible), settled as
 * `suppressed` here. Call it with the transaction of the change that sends the mail (an invite with the
 * membership it announces): it goes out if and only if that change commits.
 */
export async function queueEmail(
  store: Pick<Repositories, 'email'>,
  secrets: SecretBox,
  at: string,
  draft: EmailDraft,
): Promise<QueuedMessage> {
  const id = newId('em');
  const fields = [
    ...draft.to.map((email) => ({ email, field: 'to' as const })),
    ...(draft.cc ?? []).map((email) => ({ email, field: 'cc' as const })),
    ...(draft.bcc ?? []).map((email) => ({ email, field: 'bcc' as const })),
  ];
  const suppressed =
    draft.workspaceId === null || !isSuppressible(draft.source)
      ? new Set<string>()
      : await store.email.suppressed(
          draft.workspaceId,
          fields.map((recipient) => recipient.email),
        );
  const recipients: EmailRecipientRecord[] = fields.map((recipient) => {
    const status: EmailStatus = suppressed.has(recipient.email) ? 'suppressed' : 'queued';
    return {
      id: newId('er'),
      messageId: id,
      email: recipient.email,
      field: recipient.field,
      status,
      attempts: 0,
      nextAttemptAt: status === 'queued' ? at : null,
      lastResponse: status === 'suppressed' ? SUPPRESSED_DETAIL : null,
    };
  });
  const body: EmailBody = { html: draft.html ?? null, text: draft.text ?? null };
  const message: EmailMessageRecord = {
    id,
    workspaceId: draft.workspaceId,
    source: draft.source,
    from: draft.from,
    toHeader: [...(draft.toHeader ?? draft.to)],
    ccHeader: [...(draft.ccHeader ?? draft.cc ?? [])],
    replyTo: [...(draft.replyTo ?? [])],
    headers: { ...draft.headers },
    tags: { ...draft.tags },
    subject: draft.subject,
    body: secrets.seal(JSON.stringify(body)),
    status: messageStatus(recipients.map((recipient) => recipient.status)),
    createdAt: at,
    updatedAt: at,
  };
  const events: EmailEventRecord[] = [
    { id: newId('ee'), messageId: id, recipient: null, type: 'queued', detail: null, at },
    ...recipients
      .filter((recipient) => recipient.status === 'suppressed')
      .map((recipient) => ({
        id: newId('ee'),
        messageId: id,
        recipient: recipient.email,
        type: 'suppressed' as const,
        detail: recipient.lastResponse,
        at,
      })),
  ];
  await store.email.create(message, recipients, events);
  return { message, recipients };
}

/** The bodies of a stored message. */
export function openEmailBody(secrets: SecretBox, message: EmailMessageRecord): EmailBody {
  return JSON.parse(secrets.open(message.body)) as EmailBody;
}
