import { type Selectable, sql } from 'kysely';
import type { EmailStatus } from '../../contract/email.js';
import type { Session } from '../session.js';
import type {
  EmailEventRecord,
  EmailMessageRecord,
  EmailMessageWithRecipients,
  EmailRecipientRecord,
  EmailRepository,
  EmailSenderRecord,
  EmailSuppressionRecord,
  IdempotencyRecord,
  ListPosition,
} from '../store.js';
import { listedAfter } from './list-position.js';

export interface EmailMessageColumns {
  id: string;
  workspace_id: string | null;
  source: EmailMessageRecord['source'];
  from_address: string;
  /** JSON arrays and objects, decoded here. */
  to_header: string;
  cc_header: string;
  reply_to: string;
  headers: string;
  tags: string;
  subject: string;
  /** Sealed: never readable in the database. */
  body: string;
  status: EmailStatus;
  created_at: string;
  updated_at: string;
}

export interface EmailRecipientColumns {
  id: string;
  message_id: string;
  /** The recipient's place in the message (to, then cc, then bcc), which listings keep. */
  position: number;
  email: string;
  field: EmailRecipientRecord['field'];
  status: EmailStatus;
  attempts: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  last_response: string | null;
  updated_at: string;
}

export interface EmailEventColumns {
  id: string;
  message_id: string;
  recipient: string | null;
  type: EmailStatus;
  detail: string | null;
  at: string;
}

export interface EmailSenderColumns {
  workspace_id: string;
  sender: string;
  created_at: string;
}

export interface EmailSuppressionColumns {
  workspace_id: string;
  email: string;
  reason: EmailSuppressionRecord['reason'];
  detail: string | null;
  message_id: string | null;
  created_at: string;
}

export interface EmailIdempotencyKeyColumns {
  workspace_id: string;
  key: string;
  request_hash: string;
  message_id: string;
  created_at: string;
}

export function toEmailMessage(row: Selectable<EmailMessageColumns>): EmailMessageRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    source: row.source,
    from: row.from_address,
    toHeader: JSON.parse(row.to_header) as string[],
    ccHeader: JSON.parse(row.cc_header) as string[],
    replyTo: JSON.parse(row.reply_to) as string[],
    headers: JSON.parse(row.headers) as Record<string, string>,
    tags: JSON.parse(row.tags) as Record<string, string>,
    subject: row.subject,
    body: row.body,
    status: row.status,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toEmailRecipient(row: Selectable<EmailRecipientColumns>): EmailRecipientRecord {
  return {
    id: row.id,
    messageId: row.message_id,
    email: row.email,
    field: row.field,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastResponse: row.last_response,
  };
}

function toSuppression(row: Selectable<EmailSuppressionColumns>): EmailSuppressionRecord {
  return {
    workspaceId: row.workspace_id,
    email: row.email,
    reason: row.reason,
    detail: row.detail,
    messageId: row.message_id,
    createdAt: row.created_at,
  };
}

/** Messages, their recipients and events, allowed senders, suppressions and idempotency keys. */
export class EmailTable implements EmailRepository {
  constructor(private readonly session: Session) {}

  async create(
    message: EmailMessageRecord,
    recipients: readonly EmailRecipientRecord[],
    events: readonly EmailEventRecord[],
  ): Promise<void> {
    await this.session.write(undefined, async (db) => {
      await db
        .insertInto('email_messages')
        .values({
          id: message.id,
          workspace_id: message.workspaceId,
          source: message.source,
          from_address: message.from,
          to_header: JSON.stringify(message.toHeader),
          cc_header: JSON.stringify(message.ccHeader),
          reply_to: JSON.stringify(message.replyTo),
          headers: JSON.stringify(message.headers),
          tags: JSON.stringify(message.tags),
          subject: message.subject,
          body: message.body,
          status: message.status,
          created_at: message.createdAt,
          updated_at: message.updatedAt,
        })
        .execute();
      await db
        .insertInto('email_recipients')
        .values(
          recipients.map((recipient, position) => ({
            id: recipient.id,
            message_id: message.id,
            position,
            email: recipient.email,
            field: recipient.field,
            status: recipient.status,
            attempts: recipient.attempts,
            next_attempt_at: recipient.nextAttemptAt,
            last_response: recipient.lastResponse,
            updated_at: message.createdAt,
          })),
        )
        .execute();
      if (events.length > 0) {
        await db
          .insertInto('email_events')
          .values(
            events.map((event) => ({
              id: event.id,
              message_id: event.messageId,
              recipient: event.recipient,
              type: event.type,
              detail: event.detail,
              at: event.at,
            })),
          )
          .execute();
      }
    });
  }

  /** The messages of `rows` with their recipients, in the order given. */
  private async withRecipients(
    rows: readonly Selectable<EmailMessageColumns>[],
  ): Promise<EmailMessageWithRecipients[]> {
    if (rows.length === 0) return [];
    const recipients = await this.session.db
      .selectFrom('email_recipients')
      .selectAll()
      .where(
        'message_id',
        'in',
        rows.map((row) => row.id),
      )
      .orderBy('message_id')
      .orderBy('position')
      .execute();
    const byMessage = new Map<string, EmailRecipientRecord[]>();
    for (const recipient of recipients.map(toEmailRecipient)) {
      byMessage.set(recipient.messageId, [...(byMessage.get(recipient.messageId) ?? []), recipient]);
    }
    return rows.map((row) => ({ ...toEmailMessage(row), recipients: byMessage.get(row.id) ?? [] }));
  }

  async get(workspaceId: string | null, id: string): Promise<EmailMessageWithRecipients | undefined> {
    const row = await this.session.db
      .selectFrom('email_messages')
      .selectAll()
      .where('id', '=', id)
      .where((eb) =>
        workspaceId === null ? eb('workspace_id', 'is', null) : eb('workspace_id', '=', workspaceId),
      )
      .executeTakeFirst();
    return row && (await this.withRecipients([row]))[0];
  }

  async events(messageId: string): Promise<EmailEventRecord[]> {
    const rows = await this.session.db
      .selectFrom('email_events')
      .selectAll()
      .where('message_id', '=', messageId)
      .orderBy('at')
      // At one instant, the message's own event (queued) comes before its recipients' (suppressed at once).
      .orderBy(sql`recipient is not null`)
      .orderBy('recipient')
      .orderBy('id')
      .execute();
    return rows.map((row) => ({
      id: row.id,
      messageId: row.message_id,
      recipient: row.recipient,
      type: row.type,
      detail: row.detail,
      at: row.at,
    }));
  }

  async list(
    workspaceId: string,
    options: {
      status?: EmailStatus | undefined;
      source?: 'api' | 'account' | undefined;
      after?: ListPosition | undefined;
      limit: number;
    },
  ): Promise<EmailMessageWithRecipients[]> {
    const { status, source, after, limit } = options;
    let query = this.session.db
      .selectFrom('email_messages')
      .selectAll()
      .where('workspace_id', '=', workspaceId);
    if (status !== undefined) query = query.where('status', '=', status);
    if (source !== undefined) query = query.where('source', '=', source);
    if (after !== undefined) query = query.where((eb) => listedAfter(eb, 'created_at', 'id', after));
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return this.withRecipients(rows);
  }

  async listCaptured(options: {
    to?: string | undefined;
    limit: number;
  }): Promise<EmailMessageWithRecipients[]> {
    const { to, limit } = options;
    let query = this.session.db.selectFrom('email_messages').selectAll().where('status', '=', 'captured');
    if (to !== undefined) {
      query = query.where((eb) =>
        eb.exists(
          eb
            .selectFrom('email_recipients')
            .select('email_recipients.id')
            .whereRef('email_recipients.message_id', '=', 'email_messages.id')
            .where('email_recipients.email', '=', to.toLowerCase()),
        ),
      );
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return this.withRecipients(rows);
  }

  async findIdempotencyKey(
    workspaceId: string,
    key: string,
    since: string,
  ): Promise<IdempotencyRecord | undefined> {
    const row = await this.session.db
      .selectFrom('email_idempotency_keys')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .where('created_at', '>', since)
      .executeTakeFirst();
    return (
      row && {
        workspaceId: row.workspace_id,
        key: row.key,
        requestHash: row.request_hash,
        messageId: row.message_id,
        createdAt: row.created_at,
      }
    );
  }

  async recordIdempotencyKey(record: IdempotencyRecord, since: string): Promise<void> {
    await this.session.write(undefined, async (db) => {
      // A key older than 24 hours names nothing any more: it may name a new request.
      await db
        .deleteFrom('email_idempotency_keys')
        .where('workspace_id', '=', record.workspaceId)
        .where('key', '=', record.key)
        .where('created_at', '<=', since)
        .execute();
      await db
        .insertInto('email_idempotency_keys')
        .values({
          workspace_id: record.workspaceId,
          key: record.key,
          request_hash: record.requestHash,
          message_id: record.messageId,
          created_at: record.createdAt,
        })
        .execute();
    });
  }

  async listSenders(workspaceId: string): Promise<EmailSenderRecord[]> {
    const rows = await this.session.db
      .selectFrom('email_senders')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('sender')
      .execute();
    return rows.map((row) => ({
      workspaceId: row.workspace_id,
      sender: row.sender,
      createdAt: row.created_at,
    }));
  }

  async addSender(sender: EmailSenderRecord): Promise<boolean> {
    const result = await this.session.db
      .insertInto('email_senders')
      .values({ workspace_id: sender.workspaceId, sender: sender.sender, created_at: sender.createdAt })
      .onConflict((conflict) => conflict.columns(['workspace_id', 'sender']).doNothing())
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  async removeSender(workspaceId: string, sender: string): Promise<boolean> {
    const result = await this.session.db
      .deleteFrom('email_senders')
      .where('workspace_id', '=', workspaceId)
      .where('sender', '=', sender)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async listSuppressions(workspaceId: string): Promise<EmailSuppressionRecord[]> {
    const rows = await this.session.db
      .selectFrom('email_suppressions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('email')
      .execute();
    return rows.map(toSuppression);
  }

  async suppressed(workspaceId: string, emails: readonly string[]): Promise<Set<string>> {
    if (emails.length === 0) return new Set();
    const rows = await this.session.db
      .selectFrom('email_suppressions')
      .select('email')
      .where('workspace_id', '=', workspaceId)
      .where('email', 'in', emails)
      .execute();
    return new Set(rows.map((row) => row.email));
  }

  async suppress(suppression: EmailSuppressionRecord): Promise<void> {
    await this.session.db
      .insertInto('email_suppressions')
      .values({
        workspace_id: suppression.workspaceId,
        email: suppression.email,
        reason: suppression.reason,
        detail: suppression.detail,
        message_id: suppression.messageId,
        created_at: suppression.createdAt,
      })
      .onConflict((conflict) => conflict.columns(['workspace_id', 'email']).doNothing())
      .execute();
  }

  async removeSuppression(workspaceId: string, email: string): Promise<boolean> {
    const result = await this.session.db
      .deleteFrom('email_suppressions')
      .where('workspace_id', '=', workspaceId)
      .where('email', '=', email)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
