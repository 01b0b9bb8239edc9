import type { FastifyBaseLogger } from 'fastify';
import type { EmailStatus } from '../contract/email.js';
import { newId } from '../core/base62.js';
import type { Clock } from '../core/clock.js';
import { nextAttemptAt } from '../core/delivery-schedule.js';
import { AppError } from '../core/errors.js';
import type { Deps } from '../services/shared/deps.js';
import { publishEmailEvent } from '../services/email/events.js';
import { type EmailBody, isSuppressible, openEmailBody, SUPPRESSED_DETAIL } from '../services/email/queue.js';
import type { SecretBox } from '../services/shared/secret-box.js';
import type { QueueClaim } from '../store/repositories/queue-claim.js';
import type { ClaimedEmail } from '../store/store.js';
import type { ClaimedJob, DeliveryChannel, RecordAttempt } from './channel.js';
import type { SmtpResult, SmtpSender } from './smtp-sender.js';

/** What a captured recipient's event says: no SMTP_URL, so the message stayed on this machine. */
export const CAPTURED_DETAIL = 'SMTP_URL is not set: kept in the mailbox';

/** How the operator reads captured email (docs/account-email.md "Account email"). */
const MAILBOX_COMMAND = 'npx brand-context mailbox';

/** A relay that keeps failing is logged once a minute for each reason, not once for each copy. */
const RELAY_WARNING_INTERVAL_MS = 60_000;

/**
 * An attempt still waiting for the relay after this long waits aside, its worker slot free (docs/email.md
 * "SMTP"): the answer to a message's data may take a while, and webhooks should not wait for it.
 */
const EMAIL_PARK_AFTER_MS = 2_000;

/**
 * An attempt gives up waiting this long before its lease ends — a quarter of the lease when that is less —
 * so that it is recorded while the lease holds, and no other node sends the copy meanwhile.
 */
const LEASE_MARGIN_MS = 5_000;

export interface EmailChannelOptions {
  deps: Deps;
  secrets: SecretBox;
  /** The relay of `SMTP_URL`; without one every recipient is captured and nothing leaves the machine. */
  smtp: SmtpSender | undefined;
  logger: FastifyBaseLogger;
  /** The delays between attempts (`DELIVERY_RETRY_SCHEDULE`). */
  retrySchedule: readonly number[];
}

/** How long an attempt may take under a lease of `leaseMs`: all but its margin (LEASE_MARGIN_MS). */
function leaseAttemptMs(leaseMs: number): number {
  return leaseMs - Math.min(LEASE_MARGIN_MS, leaseMs / 4);
}

/** `ada@example.com` as logs show it: `a***@example.com`. */
function maskAddress(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, 1)}***${email.slice(at)}`;
}

/** What a warning is repeated for at most once a minute: the relay's reply code, or why there was no reply. */
function reasonOf(status: EmailStatus, response: string): string {
  return `${status} ${/^\d{3}\b/.exec(response)?.[0] ?? response}`;
}

/**
 * Email (docs/email.md "Transactional email"): one job per recipient, sent as one SMTP transaction of its own and
 * settled as the relay answered — or captured when there is no relay. Each status a recipient reaches is
 * recorded with its event, and published as `email.<status>` when it changed, in one transaction.
 */
export class EmailChannel implements DeliveryChannel {
  readonly name = 'email';
  readonly label = 'email';
  readonly parkAfterMs = EMAIL_PARK_AFTER_MS;
  private readonly clock: Clock;
  /** When each reason for not sending was last logged. */
  private readonly warnedAt = new Map<string, number>();
  /** Attempts claimed and not yet ended, parked ones included. */
  private inFlight = 0;

  constructor(private readonly options: EmailChannelOptions) {
    this.clock = options.deps.clock;
  }

  async claim(claim: QueueClaim): Promise<ClaimedJob[]> {
    const { emailQueue } = this.options.deps.store;
    // No more than the relay's connections: a copy claimed beyond them would wait for one, its lease running.
    const limit = Math.min(claim.limit, (this.options.smtp?.maxConnections ?? Infinity) - this.inFlight);
    if (limit <= 0) return [];
    // Real time: the lease's length on the worker's clock, counted from now.
    const deadline = performance.now() + leaseAttemptMs(Date.parse(claim.leaseUntil) - Date.parse(claim.now));
    const jobs = await emailQueue.claim({ ...claim, limit });
    this.inFlight += jobs.length;
    return jobs.map((job) => ({
      id: job.recipient.id,
      send: async (signal) => {
        try {
          return await this.send(job, signal, deadline);
        } finally {
          this.inFlight--;
        }
      },
      release: () => emailQueue.release(job.recipient.id, job.lease),
    }));
  }

  private async send(job: ClaimedEmail, signal: AbortSignal, deadline: number): Promise<RecordAttempt> {
    const { message, recipient } = job;
    const { deps, smtp } = this.options;
    // The address may have bounced (for another message) since this one was queued.
    if (
      message.workspaceId !== null &&
      isSuppressible(message.source) &&
      (await deps.store.email.suppressed(message.workspaceId, [recipient.email])).size > 0
    ) {
      return () => this.settle(job, 'suppressed', SUPPRESSED_DETAIL);
    }
    if (smtp === undefined) return () => this.capture(job);
    const result = await this.attempt(job, smtp, signal, deadline);
    return async () => {
      const settled = await this.settle(job, result.status, result.response, 1);
      if (settled === 'deferred' || settled === 'failed') this.warnNotSent(job, settled, result.response);
      return settled;
    };
  }

  private async attempt(
    job: ClaimedEmail,
    smtp: SmtpSender,
    signal: AbortSignal,
    deadline: number,
  ): Promise<SmtpResult> {
    let body: EmailBody;
    try {
      body = openEmailBody(this.options.secrets, job.message);
    } catch (error) {
      if (error instanceof AppError && error.code === 'secret_unreadable') {
        return {
          status: 'deferred',
          response: 'not sent: the message was sealed with another BRAND_CONTEXT_ENCRYPTION_KEY',
        };
      }
      throw error;
    }
    return smtp.send(job.message, body, job.recipient.email, signal, deadline - performance.now());
  }

  /** Keeps the message here; account email is logged (without its body: it holds one-time links). */
  private async capture(job: ClaimedEmail): Promise<EmailStatus | undefined> {
    const { message, recipient } = job;
    const settled = await this.settle(job, 'captured', CAPTURED_DETAIL);
    if (!settled || message.source !== 'account') return settled;
    this.options.logger.info(
      {
        message_id: message.id,
        subject: message.subject,
        to: maskAddress(recipient.email),
        read_with: MAILBOX_COMMAND,
      },
      'captured an email',
    );
    return settled;
  }

  /** Tells the operator the relay is failing (docs/email.md "Transactional email"), without flooding the log in an outage. */
  private warnNotSent(job: ClaimedEmail, status: EmailStatus, response: string): void {
    const reason = reasonOf(status, response);
    const now = this.clock.now();
    const last = this.warnedAt.get(reason);
    if (last !== undefined && now - last < RELAY_WARNING_INTERVAL_MS) return;
    this.warnedAt.set(reason, now);
    const to = maskAddress(job.recipient.email);
    this.options.logger.warn(
      {
        message_id: job.message.id,
        to,
        status,
        // The relay's answer may name the recipient.
        response: response.replaceAll(job.recipient.email, to),
      },
      status === 'failed'
        ? 'an email failed: the relay did not take it, and no retry is left'
        : 'an email was deferred: the relay did not take it; it is retried (this reason is logged once a minute)',
    );
  }

  /**
   * Records what became of the recipient, `attempted` being how many attempts that took (0 when nothing was
   * sent). A deferral with no retry left is `failed`; a bounce of product email suppresses the address for the workspace.
   * Returns the status recorded, or undefined when the lease ran out: the recipient is another node's, and
   * nothing is recorded.
   */
  private async settle(
    job: ClaimedEmail,
    status: EmailStatus,
    response: string,
    attempted = 0,
  ): Promise<EmailStatus | undefined> {
    const { message, recipient, lease } = job;
    const now = this.clock.now();
    const at = new Date(now).toISOString();
    const attempts = recipient.attempts + attempted;
    const next =
      status === 'deferred' ? nextAttemptAt(this.options.retrySchedule, attempts, null, now) : undefined;
    const settled: EmailStatus = status === 'deferred' && next === undefined ? 'failed' : status;
    return this.options.deps.store.transaction(async (tx) => {
      const recorded = await tx.emailQueue.settle(recipient.id, lease, {
        eventId: newId('ee'),
        status: settled,
        attempts,
        nextAttemptAt: next === undefined ? null : new Date(next).toISOString(),
        response,
        at,
      });
      if (!recorded) return undefined;
      if (settled === 'bounced' && message.workspaceId !== null && isSuppressible(message.source)) {
        await tx.email.suppress({
          workspaceId: message.workspaceId,
          email: recipient.email,
          reason: 'bounced',
          detail: response,
          messageId: message.id,
          createdAt: at,
        });
      }
      // Deferred again is no news: subscribers hear of each status once.
      if (settled !== recipient.status) {
        await publishEmailEvent(tx, at, message, recipient.email, settled, response);
      }
      return settled;
    });
  }
}
