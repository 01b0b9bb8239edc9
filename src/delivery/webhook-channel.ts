import type { FastifyBaseLogger } from 'fastify';
import { Webhook as Signer } from 'standardwebhooks';
import type { Clock } from '../core/clock.js';
import { endpointBackoffMs, nextAttemptAt } from '../core/delivery-schedule.js';
import { AppError } from '../core/errors.js';
import { recordAudit, SYSTEM } from '../services/audit/audit.js';
import type { Deps } from '../services/shared/deps.js';
import type { SecretBox } from '../services/shared/secret-box.js';
import { previousSecretLive } from '../services/webhooks/webhooks.js';
import type { QueueClaim } from '../store/repositories/queue-claim.js';
import type { ClaimedDelivery, DeliveryOutcome, Repositories, WebhookRecord } from '../store/store.js';
import type { ClaimedJob, DeliveryChannel, RecordAttempt } from './channel.js';
import type { AttemptResult, WebhookSender } from './webhook-sender.js';

/** An endpoint whose every delivery has failed for this long is disabled (docs/webhooks.md "Webhooks"). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;

/** Attempts in flight to one endpoint at most, across nodes (docs/webhooks.md "Fair delivery"). */
export const ENDPOINT_CONCURRENCY = 1;

/**
 * A webhook attempt with no answer after this long waits aside, its slot free for the next job: healthy
 * receivers answer well within it, and one that hangs holds a slot this long instead of the 10 s timeout.
 */
const PARK_AFTER_MS = 1000;

export interface WebhookChannelOptions {
  deps: Deps;
  secrets: SecretBox;
  sender: WebhookSender;
  logger: FastifyBaseLogger;
  /** The delays between attempts (`DELIVERY_RETRY_SCHEDULE`). */
  retrySchedule: readonly number[];
}

/**
 * Webhook deliveries (docs/webhooks.md "Webhooks", delivery): each attempt signed with the endpoint's secrets and
 * POSTed; its result recorded with when the next is due and the endpoint's run of failures.
 */
export class WebhookChannel implements DeliveryChannel {
  readonly name = 'webhook deliveries';
  readonly label = 'webhook';
  readonly parkAfterMs = PARK_AFTER_MS;
  private readonly clock: Clock;

  constructor(private readonly options: WebhookChannelOptions) {
    this.clock = options.deps.clock;
  }

  async claim(claim: QueueClaim): Promise<ClaimedJob[]> {
    const { deliveries } = this.options.deps.store;
    return (await deliveries.claim({ ...claim, perEndpoint: ENDPOINT_CONCURRENCY })).map((delivery) => ({
      id: delivery.id,
      send: (signal) => this.send(delivery, signal),
      release: () => deliveries.release(delivery.id, delivery.lease),
    }));
  }

  private async send(delivery: ClaimedDelivery, signal: AbortSignal): Promise<RecordAttempt | undefined> {
    const webhook = await this.options.deps.store.webhooks.get(delivery.workspaceId, delivery.webhookId);
    // Deleted meanwhile: its deliveries went with it.
    if (!webhook) return undefined;
    const attemptedAt = new Date(this.clock.now());
    const result = await this.attempt(delivery, webhook, attemptedAt, signal);
    return () => this.settle(delivery, webhook, attemptedAt, result);
  }

  private signatures(webhook: WebhookRecord, id: string, at: Date, body: string): string {
    const { secrets } = this.options;
    const current = [webhook.secret, previousSecretLive(webhook, at.getTime())].filter(
      (sealed): sealed is string => sealed !== undefined,
    );
    return current.map((sealed) => new Signer(secrets.open(sealed)).sign(id, at, body)).join(' ');
  }

  /** Signs and sends; anything that keeps it from being sent is a failed attempt the log explains. */
  private async attempt(
    delivery: ClaimedDelivery,
    webhook: WebhookRecord,
    attemptedAt: Date,
    signal: AbortSignal,
  ): Promise<AttemptResult> {
    const notSent = (why: string): AttemptResult => ({
      status: null,
      ok: false,
      durationMs: 0,
      error: `not sent: ${why}`,
    });
    if (webhook.disabledAt !== null) return notSent('the endpoint is disabled');
    let signature: string;
    try {
      signature = this.signatures(webhook, delivery.eventId, attemptedAt, delivery.payload);
    } catch (error) {
      if (error instanceof AppError && error.code === 'secret_unreadable') {
        return notSent('the signing secret was sealed with another BRAND_CONTEXT_ENCRYPTION_KEY');
      }
      throw error;
    }
    return this.options.sender.send(
      {
        url: webhook.url,
        body: delivery.payload,
        headers: {
          'webhook-id': delivery.eventId,
          'webhook-timestamp': String(Math.floor(attemptedAt.getTime() / 1000)),
          'webhook-signature': signature,
        },
      },
      signal,
    );
  }

  /** Records the attempt, when the next is due and the endpoint's run of failures, in one transaction. */
  private async settle(
    delivery: ClaimedDelivery,
    webhook: WebhookRecord,
    attemptedAt: Date,
    result: AttemptResult,
  ): Promise<DeliveryOutcome['status'] | undefined> {
    const attempt = delivery.attempts + 1;
    const settledAt = this.clock.now();
    const at = attemptedAt.toISOString();
    const disabled = webhook.disabledAt !== null;
    // A disabled endpoint's deliveries fail at once: retrying them would only fail again.
    const next =
      result.ok || disabled
        ? undefined
        : nextAttemptAt(this.options.retrySchedule, attempt, delivery.maxAttempts, settledAt);
    const outcome = outcomeOf(result.ok, next);
    const { recorded, disabledNow } = await this.options.deps.store.transaction(async (tx) => {
      const settled = await tx.deliveries.settle(
        delivery.id,
        delivery.lease,
        {
          attempt,
          attemptedAt: at,
          responseStatus: result.status,
          durationMs: result.durationMs,
          error: result.error,
        },
        outcome,
      );
      // Not recorded: the lease ran out, the attempt is another node's. A disabled endpoint stays as it is.
      if (!settled || disabled) return { recorded: settled, disabledNow: false };
      const disabledNow = await trackFailures(tx, webhook, result.ok, at, settledAt);
      if (!result.ok && !disabledNow) {
        // Failing: no other attempt to it until its backoff passes; its due deliveries wait, holding no slot.
        const failingFor = settledAt - Date.parse(webhook.failingSince ?? at);
        const until = settledAt + endpointBackoffMs(this.options.retrySchedule, failingFor);
        await tx.deliveries.backOff(webhook.id, new Date(until).toISOString());
      } else if (webhook.failingSince !== null) {
        await tx.deliveries.backOff(webhook.id, null);
      }
      return { recorded: true, disabledNow };
    });
    if (disabledNow) {
      this.options.logger.warn(
        { webhook_id: webhook.id },
        'webhook endpoint disabled: every delivery failed for 5 days',
      );
    }
    return recorded ? outcome.status : undefined;
  }
}

/** What an attempt leaves the delivery as: succeeded, due again at `next`, or failed with none left. */
function outcomeOf(ok: boolean, next: number | undefined): DeliveryOutcome {
  if (ok) return { status: 'succeeded', nextAttemptAt: null };
  return next === undefined
    ? { status: 'failed', nextAttemptAt: null }
    : { status: 'retrying', nextAttemptAt: new Date(next).toISOString() };
}

/**
 * Keeps the endpoint's `failing_since`: a success clears it, a failure starts it, and a failure once it is
 * DISABLE_AFTER_FAILING_MS old disables the endpoint (docs/webhooks.md "Webhooks"). Returns whether it disabled it.
 */
async function trackFailures(
  tx: Pick<Repositories, 'webhooks' | 'audit'>,
  webhook: WebhookRecord,
  ok: boolean,
  at: string,
  settledAt: number,
): Promise<boolean> {
  const failingSince = ok ? null : (webhook.failingSince ?? at);
  if (failingSince !== null && settledAt - Date.parse(failingSince) >= DISABLE_AFTER_FAILING_MS) {
    await tx.webhooks.update(webhook.workspaceId, webhook.id, {
      disabledAt: at,
      disabledReason: 'failing',
      updatedAt: at,
    });
    await recordAudit(tx, SYSTEM, at, {
      workspaceId: webhook.workspaceId,
      action: 'webhook.disabled',
      targetType: 'webhook',
      targetId: webhook.id,
      details: { reason: 'failing', failing_since: failingSince },
    });
    return true;
  }
  if (failingSince !== webhook.failingSince) {
    await tx.webhooks.update(webhook.workspaceId, webhook.id, { failingSince, updatedAt: at });
  }
  return false;
}
