import ms from 'ms';

/**
 * When deliveries are retried (docs/webhooks.md "Webhooks", retries): the delays after the first attempt, one per retry.
 * The default is Standard Webhooks' schedule; after the last retry a delivery has failed.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/** The delays of `DELIVERY_RETRY_SCHEDULE` in milliseconds, or why it cannot be read. */
export function parseRetrySchedule(text: string): number[] | { error: string } {
  const parts = text.split(',').map((part) => part.trim());
  const delays: number[] = [];
  for (const part of parts) {
    const delay = /^\d+(ms|s|m|h|d)$/.test(part) ? ms(part as ms.StringValue) : Number.NaN;
    if (!Number.isFinite(delay) || delay < 0) {
      return { error: `"${part}" is not a delay such as 5s, 5m, 2h or 1d` };
    }
    delays.push(delay);
  }
  if (delays.length > 20) return { error: 'at most 20 retries' };
  return delays;
}

/**
 * When the attempt after `attempts` failed ones is due, or undefined when none is left: a delivery makes
 * one attempt at once and one after each delay of the schedule, unless `maxAttempts` (set by a manual
 * retry, which makes a single attempt) ends it sooner.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempts: number,
  maxAttempts: number | null,
  now: number,
): number | undefined {
  if (maxAttempts !== null && attempts >= maxAttempts) return undefined;
  const delay = schedule[attempts - 1];
  return delay === undefined ? undefined : now + delay;
}

/** The longest an endpoint backs off after failed attempts (docs/webhooks.md "Fair delivery"). */
export const MAX_ENDPOINT_BACKOFF_MS = 5 * 60 * 1000;

/**
 * How long an endpoint whose attempt just failed gets no other attempt, whichever delivery it would be: as
 * long as it has been failing (so the wait doubles while it keeps failing), at least the schedule's first
 * delay, at most MAX_ENDPOINT_BACKOFF_MS. Its other due deliveries wait in the queue meanwhile, holding no
 * worker.
 */
export function endpointBackoffMs(schedule: readonly number[], failingForMs: number): number {
  return Math.min(MAX_ENDPOINT_BACKOFF_MS, Math.max(schedule[0] ?? 0, failingForMs));
}
