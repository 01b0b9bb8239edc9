import { type EmailStatus, messageStatus } from '../../contract/email.js';
import type { Session } from '../session.js';
import type { ClaimedEmail, EmailOutcome, EmailQueueRepository } from '../store.js';
import { toEmailMessage, toEmailRecipient } from './email.js';
import { claimDue, type QueueClaim, countQueued, releaseLease } from './queue-claim.js';

/**
 * The recipients of messages as jobs of the delivery queue (docs/email.md "Transactional email"): claimed with a
 * lease like webhook deliveries, each settled on its own, and the message's status kept as its recipients'.
 */
export class EmailQueueTable implements EmailQueueRepository {
  constructor(private readonly session: Session) {}

  async claim(claim: QueueClaim): Promise<ClaimedEmail[]> {
    return claimDue(this.session, 'email_recipients', claim, async (db, ids) => {
      const recipients = await db
        .selectFrom('email_recipients')
        .selectAll()
        .where('id', 'in', ids)
        .orderBy('next_attempt_at')
        .execute();
      const messages = await db
        .selectFrom('email_messages')
        .selectAll()
        .where(
          'id',
          'in',
          recipients.map((recipient) => recipient.message_id),
        )
        .execute();
      const byId = new Map(messages.map((row) => [row.id, toEmailMessage(row)]));
      return recipients.flatMap((row) => {
        const message = byId.get(row.message_id);
        return message ? [{ recipient: toEmailRecipient(row), message, lease: claim.lease }] : [];
      });
    });
  }

  async settle(recipientId: string, lease: string, outcome: EmailOutcome): Promise<boolean> {
    return this.session.transaction(async ({ db, backend }) => {
      const held = await db
        .selectFrom('email_recipients')
        .select(['message_id', 'email'])
        .where('id', '=', recipientId)
        .where('lease_owner', '=', lease)
        .executeTakeFirst();
      if (!held) return false;
      // The settles of one message's recipients take turns on its row, so that each works the message's
      // status out from the others' as committed (SQLite writes one transaction at a time anyway).
      await db
        .selectFrom('email_messages')
        .select('id')
        .where('id', '=', held.message_id)
        .$if(backend.kind === 'postgres', (query) => query.forUpdate())
        .execute();
      const updated = await db
        .updateTable('email_recipients')
        .set({
          status: outcome.status,
          attempts: outcome.attempts,
          next_attempt_at: outcome.nextAttemptAt,
          lease_owner: null,
          lease_expires_at: null,
          last_response: outcome.response,
          updated_at: outcome.at,
        })
        .where('id', '=', recipientId)
        .where('lease_owner', '=', lease)
        .executeTakeFirst();
      if (updated.numUpdatedRows === 0n) return false;
      await db
        .insertInto('email_events')
        .values({
          id: outcome.eventId,
          message_id: held.message_id,
          recipient: held.email,
          type: outcome.status,
          detail: outcome.response,
          at: outcome.at,
        })
        .execute();
      const statuses = await db
        .selectFrom('email_recipients')
        .select('status')
        .where('message_id', '=', held.message_id)
        .execute();
      await db
        .updateTable('email_messages')
        .set({ status: messageStatus(statuses.map((row) => row.status)), updated_at: outcome.at })
        .where('id', '=', held.message_id)
        .execute();
      return true;
    });
  }

  async release(recipientId: string, lease: string): Promise<void> {
    await releaseLease(this.session, 'email_recipients', recipientId, lease);
  }

  countQueued(): Promise<{ status: EmailStatus; count: number }[]> {
    return countQueued(this.session, 'email_recipients');
  }
}
