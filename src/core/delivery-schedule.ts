import ms from 'ms';

/**
 * When deliveries are retried (README "Webhooks", retries): the delays after the first attempt, one per retry.
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
