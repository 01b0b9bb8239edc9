import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import { DEFAULT_EMAIL_FROM, type DeliveryConfig } from '../config.js';
import type { Clock } from '../core/clock.js';
import type { Deps } from '../services/shared/deps.js';
import type { Metrics } from '../services/metrics/metrics.js';
import { sweepKeyExpiry } from '../services/keys/expiry.js';
import type { SecretBox } from '../services/shared/secret-box.js';
import type { ClaimedJob, DeliveryChannel } from './channel.js';
import { EmailChannel } from './email-channel.js';
import { SmtpSender } from './smtp-sender.js';
import { WebhookChannel } from './webhook-channel.js';
import { WebhookSender } from './webhook-sender.js';

export interface DeliveryWorkerOptions {
  deps: Deps;
  /** Opens webhook secrets and message bodies. */
  secrets: SecretBox;
  sender: WebhookSender;
  /** The relay of `SMTP_URL`, closed when the worker stops; without one, email is captured, never sent. */
  smtp?: SmtpSender | undefined;
  logger: FastifyBaseLogger;
  /**
   * Jobs this node sends at once, webhook deliveries and email together (`DELIVERY_WORKERS`); a webhook
   * attempt still unanswered after a second stops counting (it parks: docs/webhooks.md "Fair delivery").
   */
  concurrency: number;
  /** The delays between attempts (`DELIVERY_RETRY_SCHEDULE`). */
  retrySchedule: readonly number[];
  /** How long a claimed job is this node's: past it, another node may take it (a crash). */
  leaseMs: number;
  /** How often the queue is looked at. */
  pollMs?: number;
  /** How often keys are swept for expiry events. */
  sweepMs?: number;
  /** The sender of key expiry emails (`EMAIL_FROM`); the default one otherwise. */
  emailFrom?: string;
  /** Counts what became of each job (GET /metrics); nothing is counted without it. */
  metrics?: Pick<Metrics, 'deliveryOutcome'> | undefined;
}

const DEFAULT_POLL_MS = 500;
const DEFAULT_SWEEP_MS = 60_000;
/**
 * Attempts waiting aside for an answer (parked, see DeliveryChannel.parkAfterMs), per worker slot: beyond
 * that, a slow attempt keeps its slot. One endpoint parks at most one at a time (ENDPOINT_CONCURRENCY).
 */
const PARKED_PER_SLOT = 16;

/**
 * The delivery queue's worker inside `serve` (docs/webhooks.md "Webhooks", delivery): it claims due jobs of each
 * channel (webhook deliveries, email recipients) with a lease, sends each once, and records every attempt.
 * Several nodes may run one each on a shared database. Stopping lets attempts in flight finish (a webhook's
 * within its 10 s timeout, an email copy before its lease ends), or, if the caller gives up waiting, aborts
 * them and releases their jobs to another node at once.
 */
export class DeliveryWorker {
  /** The attempts running, by their abort: not by job, as a job whose lease ran out may be claimed again. */
  private readonly inFlight = new Map<AbortController, Promise<void>>();
  /** Those of them holding a slot: the others are parked, waiting aside for their answer. */
  private readonly holding = new Set<AbortController>();
  private readonly channels: readonly DeliveryChannel[];
  /** The channel the next poll claims from first. */
  private turn = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** A slot came free while a poll was running: poll again once it is done. */
  private pollAgain = false;
  private stopped = false;
  private readonly clock: Clock;

  constructor(private readonly options: DeliveryWorkerOptions) {
    this.clock = options.deps.clock;
    const { deps, secrets, sender, smtp, logger, retrySchedule } = options;
    this.channels = [
      new WebhookChannel({ deps, secrets, sender, logger, retrySchedule }),
      new EmailChannel({ deps, secrets, smtp, logger, retrySchedule }),
    ];
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
   * Asked while one runs, another follows it: the slot that came free (or the lease just settled, which
   * lets its endpoint's next delivery be claimed) is used now, not at the next tick.
   */
  private pollOnce(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return this.polling;
    }
    this.polling = this.poll().finally(() => {
      this.polling = undefined;
      if (this.pollAgain && !this.stopped) {
        this.pollAgain = false;
        void this.pollOnce();
      }
    });
    return this.polling;
  }

  private scheduleSweep(delay: number): void {
    if (this.stopped) return;
    this.sweepTimer = setTimeout(() => {
      const { deps, secrets, emailFrom = DEFAULT_EMAIL_FROM } = this.options;
      void sweepKeyExpiry(deps, { secrets, from: emailFrom })
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

  /**
   * Claims as many due jobs as there are free slots, and starts sending them. The channels share the slots,
   * each poll starting with the next one, so that a busy channel does not keep the other waiting.
   */
  private async poll(): Promise<void> {
    this.pollAgain = false;
    let free = this.options.concurrency - this.holding.size;
    if (this.stopped || free <= 0) return;
    const now = this.clock.now();
    const claim = {
      lease: randomUUID(),
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + this.options.leaseMs).toISOString(),
    };
    const first = this.turn;
    this.turn = (first + 1) % this.channels.length;
    for (const channel of [...this.channels.slice(first), ...this.channels.slice(0, first)]) {
      if (free <= 0) return;
      let claimed: ClaimedJob[];
      try {
        claimed = await channel.claim({ ...claim, limit: free });
      } catch (error) {
        this.options.logger.error({ err: error }, `could not claim ${channel.name}`);
        continue;
      }
      for (const job of claimed) this.dispatch(channel, job);
      free -= claimed.length;
    }
  }

  private dispatch(channel: DeliveryChannel, job: ClaimedJob): void {
    const abort = new AbortController();
    this.holding.add(abort);
    const park =
      channel.parkAfterMs === undefined
        ? undefined
        : setTimeout(() => {
            this.park(abort);
          }, channel.parkAfterMs);
    park?.unref();
    const done = this.run(job, abort.signal)
      .then(
        (outcome) => {
          this.options.metrics?.deliveryOutcome(channel.label, outcome);
        },
        (error: unknown) => {
          this.options.metrics?.deliveryOutcome(channel.label, 'error');
          this.options.logger.error(
            { err: error, job_id: job.id },
            `${channel.name}: attempt failed to record`,
          );
        },
      )
      .finally(() => {
        clearTimeout(park);
        this.holding.delete(abort);
        this.inFlight.delete(abort);
        // A slot is free: look for more at once rather than at the next poll.
        if (!this.stopped) void this.pollOnce();
      });
    this.inFlight.set(abort, done);
  }

  /**
   * A slow attempt gives its slot back and goes on waiting for its answer (up to its timeout), so that an
   * endpoint that hangs cannot keep the slots from everyone else; unless too many wait aside already.
   */
  private park(abort: AbortController): void {
    const parked = this.inFlight.size - this.holding.size;
    if (!this.holding.has(abort) || parked >= this.options.concurrency * PARKED_PER_SLOT) return;
    this.holding.delete(abort);
    if (!this.stopped) void this.pollOnce();
  }

  /** Makes the job's attempt and records it; resolves to what became of it, as /metrics counts it. */
  private async run(job: ClaimedJob, signal: AbortSignal): Promise<string> {
    const record = await job.send(signal);
    if (signal.aborted) {
      // Stopping: the attempt did not count; another node (or this one, restarted) makes it.
      await job.release();
      return 'released';
    }
    // Nothing to record: the job went with its endpoint.
    if (record === undefined) return 'gone';
    return (await record()) ?? 'lease_lost';
  }

  /**
   * Stops claiming, and waits up to `graceMs` for the attempts in flight; those still running then are
   * aborted and their jobs released, due again at once for any node.
   */
  async stop(graceMs = 0): Promise<void> {
    this.stopped = true;
    clearTimeout(this.pollTimer);
    clearTimeout(this.sweepTimer);
    await this.polling;
    const running = [...this.inFlight];
    const grace = setTimeout(() => {
      for (const [abort] of running) abort.abort();
    }, graceMs);
    await Promise.all(running.map(([, done]) => done));
    clearTimeout(grace);
    this.options.smtp?.close();
  }
}

/**
 * The worker `serve` runs with the configuration's settings (`DELIVERY_*`, `WEBHOOK_ALLOW_PRIVATE_URLS`,
 * `SMTP_URL`, `EMAIL_FROM`).
 */
export function startDeliveryWorker(options: {
  deps: Deps;
  secrets: SecretBox;
  config: DeliveryConfig;
  smtpUrl: string | undefined;
  emailFrom: string;
  logger: FastifyBaseLogger;
  metrics?: Pick<Metrics, 'deliveryOutcome'> | undefined;
}): DeliveryWorker {
  const { deps, secrets, config, smtpUrl, emailFrom, logger, metrics } = options;
  if (smtpUrl === undefined) {
    logger.warn(
      'SMTP_URL is not set: email is captured, not sent (read it in Settings → Email → Development mailbox, or with npx brand-context mailbox)',
    );
  }
  const worker = new DeliveryWorker({
    deps,
    logger,
    secrets,
    sender: new WebhookSender({ allowPrivate: config.allowPrivateUrls }),
    smtp: smtpUrl === undefined ? undefined : new SmtpSender(smtpUrl, { maxConnections: config.workers }),
    concurrency: config.workers,
    retrySchedule: config.retrySchedule,
    leaseMs: config.leaseMs,
    emailFrom,
    metrics,
  });
  worker.start();
  return worker;
}
