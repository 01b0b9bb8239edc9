import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { Webhook as Signer } from 'standardwebhooks';
import type { DeliveryConfig } from '../config.js';
import type { Clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { nextAttemptAt } from '../core/delivery-schedule.js';
import { recordAudit, SYSTEM } from '../services/audit.js';
import type { Deps } from '../services/deps.js';
import { sweepKeyExpiry } from '../services/key-expiry.js';
import { SecretBox } from '../services/secret-box.js';
import { previousSecretLive } from '../services/webhooks.js';
import type { ClaimedDelivery, DeliveryOutcome, Repositories, WebhookRecord } from '../store/store.js';
import { type AttemptResult, WebhookSender } from './webhook-sender.js';

/** An endpoint whose every delivery has failed for this long is disabled (README "Webhooks"). */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 60 * 60 * 1000;

export interface DeliveryWorkerOptions {
  deps: Deps;
  secrets: SecretBox;
  sender: WebhookSender;
  logger: FastifyBaseLogger;
  /** How many deliveries this node sends at once (`DELIVERY_WORKERS`). */
  concurrency: number;
  /** The delays between attempts (`DELIVERY_RETRY_SCHEDULE`). */
  retrySchedule: readonly number[];
  /** How long a claimed delivery is this node's: past it, another node may take it (a crash). */
  leaseMs: number;
  /** How often the queue is looked at. */
  pollMs?: number;
  /** How often keys are swept for expiry events. */
  sweepMs?: number;
}

const DEFAULT_POLL_MS = 500;
const DEFAULT_SWEEP_MS = 60_000;

/**
 * The delivery queue's worker inside `serve` (README "Webhooks", delivery): it claims due deliveries with a
 * lease, sends each once, and records every attempt. Several nodes may run one each on a shared database.
 * Stopping lets attempts in flight finish (they are bounded by the 10 s timeout), or, if the caller
 * gives up waiting, aborts them and releases their deliveries to another node at once.
 */
export class DeliveryWorker {
  private readonly inFlight = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private stopped = false;
  private readonly clock: Clock;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.clock = options.deps.clock;
  }

  start(): void {
    this.schedulePoll(0);
    this.scheduleSweep(0);
  }

  private schedulePoll(delay: number): void {
    if (this.stopped) return;
    this.pollTimer = setTimeout(() => {
      void this.pollOnce().finally(() => {
        this.schedulePoll(this.options.pollMs ?? DEFAULT_POLL_MS);
      });
    }, delay);
    this.pollTimer.unref();
  }

  /**
   * One poll at a time: two at once would each count the same free slots (claiming more than `concurrency`),
   * and `stop()` would wait for only one of them, letting the other start attempts after the store closed.
   */
  private pollOnce(): Promise<void> {
    this.polling ??= this.poll().finally(() => {
      this.polling = undefined;
    });
    return this.polling;
  }

  private scheduleSweep(delay: number): void {
    if (this.stopped) return;
    this.sweepTimer = setTimeout(() => {
      void sweepKeyExpiry(this.options.deps)
        .then((published) => {
          if (published > 0) this.options.logger.info({ published }, 'key expiry events queued');
        })
        .catch((error: unknown) => {
          this.options.logger.error({ err: error }, 'could not sweep keys for expiry events');
        })
        .finally(() => {
          this.scheduleSweep(this.options.sweepMs ?? DEFAULT_SWEEP_MS);
        });
    }, delay);
    this.sweepTimer.unref();
  }

  /** Claims as many due deliveries as there are free slots, and starts sending them. */
  private async poll(): Promise<void> {
    const free = this.options.concurrency - this.inFlight.size;
    if (this.stopped || free <= 0) return;
    const now = this.clock.now();
    let claimed: ClaimedDelivery[];
    try {
      claimed = await this.options.deps.store.deliveries.claim({
        lease: randomUUID(),
        now: new Date(now).toISOString(),
        leaseUntil: new Date(now + this.options.leaseMs).toISOString(),
        limit: free,
      });
    } catch (error) {
      this.options.logger.error({ err: error }, 'could not claim deliveries');
      return;
    }
    for (const delivery of claimed) {
      const abort = new AbortController();
      const done = this.deliver(delivery, abort.signal)
        .catch((error: unknown) => {
          this.options.logger.error(
            { err: error, delivery_id: delivery.id },
            'delivery attempt failed to record',
          );
        })
        .finally(() => {
          this.inFlight.delete(delivery.id);
          // A slot is free: look for more at once rather than at the next poll.
          if (!this.stopped) void this.pollOnce();
        });
      this.inFlight.set(delivery.id, { abort, done });
    }
  }

  private async signatures(webhook: WebhookRecord, id: string, at: Date, body: string): Promise<string> {
    const { secrets } = this.options;
    const current = [webhook.secret, previousSecretLive(webhook, at.getTime())].filter(
      (sealed): sealed is string => sealed !== undefined,
    );
    const signatures = await Promise.all(
      current.map(async (sealed) => new Signer(await secrets.open(sealed)).sign(id, at, body)),
    );
    return signatures.join(' ');
  }

  private async deliver(delivery: ClaimedDelivery, signal: AbortSignal): Promise<void> {
    const { deps } = this.options;
    const webhook = await deps.store.webhooks.get(delivery.workspaceId, delivery.webhookId);
    // Deleted meanwhile: its deliveries went with it.
    if (!webhook) return;
    const attemptedAt = new Date(this.clock.now());
    const result = await this.attempt(delivery, webhook, attemptedAt, signal);
    if (signal.aborted) {
      // Stopping: the attempt did not count; another node (or this one, restarted) makes it.
      await deps.store.deliveries.release(delivery.id, delivery.lease);
      return;
    }
    await this.settle(delivery, webhook, attemptedAt, result);
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
      signature = await this.signatures(webhook, delivery.eventId, attemptedAt, delivery.payload);
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
  ): Promise<void> {
    const attempt = delivery.attempts + 1;
    const settledAt = this.clock.now();
    const at = attemptedAt.toISOString();
    const disabled = webhook.disabledAt !== null;
    // A disabled endpoint's deliveries fail at once: retrying them would only fail again.
    const next =
      result.ok || disabled
        ? undefined
        : nextAttemptAt(this.options.retrySchedule, attempt, delivery.maxAttempts, settledAt);
    const disabledNow = await this.options.deps.store.transaction(async (tx) => {
      const recorded = await tx.deliveries.settle(
        delivery.id,
        delivery.lease,
        {
          attempt,
          attemptedAt: at,
          responseStatus: result.status,
          durationMs: result.durationMs,
          error: result.error,
        },
        outcomeOf(result.ok, next),
      );
      // Not recorded: the lease ran out, the attempt is another node's. A disabled endpoint stays as it is.
      return recorded && !disabled && trackFailures(tx, webhook, result.ok, at, settledAt);
    });
    if (disabledNow) {
      this.options.logger.warn(
        { webhook_id: webhook.id },
        'webhook endpoint disabled: every delivery failed for 5 days',
      );
    }
  }

  /**
   * Stops claiming, and waits up to `graceMs` for the attempts in flight; those still running then are
   * aborted and their deliveries released, due again at once for any node.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.sweepTimer);
    await this.polling;
    const running = [...this.inFlight.values()];
    const grace = setTimeout(() => {
      for (const entry of running) entry.abort.abort();
    }, graceMs);
    await Promise.all(running.map((entry) => entry.done));
    clearTimeout(grace);
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
 * DISABLE_AFTER_FAILING_MS old disables the endpoint (README "Webhooks"). Returns whether it disabled it.
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

/** The worker `serve` runs with the configuration's settings (`DELIVERY_*`, `WEBHOOK_ALLOW_PRIVATE_URLS`). */
export function startDeliveryWorker(options: {
  deps: Deps;
  config: DeliveryConfig;
  logger: FastifyBaseLogger;
}): DeliveryWorker {
  const { deps, config, logger } = options;
  const worker = new DeliveryWorker({
    deps,
    logger,
    secrets: new SecretBox(deps.store, config.encryptionKey),
    sender: new WebhookSender({ allowPrivate: config.allowPrivateUrls }),
    concurrency: config.workers,
    retrySchedule: config.retrySchedule,
    leaseMs: config.leaseMs,
  });
  worker.start();
  return worker;
}
