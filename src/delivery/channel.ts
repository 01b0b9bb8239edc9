import type { QueueClaim } from '../store/repositories/queue-claim.js';

/**
 * Records what an attempt came to, in one transaction with all that follows from it; resolves to the status
 * recorded (counted by /metrics), or undefined when the lease ran out and the job was another node's.
 */
export type RecordAttempt = () => Promise<string | undefined>;

/** A job a channel holds the lease of: its one attempt. */
export interface ClaimedJob {
  /** Unique across channels (`dlv_…`, `er_…`): how log lines name the job. */
  readonly id: string;
  /**
   * Makes the attempt, and resolves to how to record it (undefined when nothing is left to record: the
   * job went with its endpoint). The worker records it unless stopping aborted `signal` meanwhile.
   */
  send(signal: AbortSignal): Promise<RecordAttempt | undefined>;
  /** Gives the job back, due again at once: the attempt was cut short and does not count. */
  release(): Promise<void>;
}

/** One kind of job of the delivery queue: webhook deliveries, email recipients (docs/webhooks.md "Webhooks"). */
export interface DeliveryChannel {
  /** How log lines name the channel's jobs. */
  readonly name: string;
  /** How /metrics labels them (`channel`). */
  readonly label: 'webhook' | 'email';
  /** Leases up to `claim.limit` due jobs. */
  claim(claim: QueueClaim): Promise<ClaimedJob[]>;
  /**
   * An attempt of this channel still running after this long gives its worker slot back and waits aside
   * for its answer (docs/webhooks.md "Fair delivery"): waiting costs a socket, not a slot. Undefined: its
   * attempts hold their slot to the end.
   */
  readonly parkAfterMs?: number;
}
