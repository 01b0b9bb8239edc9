import { describe, expect, it } from 'vitest';
import {
  DEFAULT_RETRY_SCHEDULE,
  endpointBackoffMs,
  MAX_ENDPOINT_BACKOFF_MS,
  nextAttemptAt,
  parseRetrySchedule,
} from './delivery-schedule.js';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-11-20T10:00:00.000Z');

describe('parseRetrySchedule', () => {
  it("reads the default as Standard Webhooks' schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h", () => {
    expect(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE)).toEqual([
      5 * SECOND,
      5 * MINUTE,
      30 * MINUTE,
      2 * HOUR,
      5 * HOUR,
      10 * HOUR,
      10 * HOUR,
    ]);
  });

  it('reads every unit, zero, and spaces around the commas', () => {
    expect(parseRetrySchedule('250ms, 0s ,2s,3m,4h,1d')).toEqual([
      250,
      0,
      2 * SECOND,
      3 * MINUTE,
      4 * HOUR,
      DAY,
    ]);
    expect(parseRetrySchedule('1m')).toEqual([MINUTE]);
  });

  it('takes up to 20 retries and refuses a 21st', () => {
    expect(parseRetrySchedule(Array(20).fill('1s').join(','))).toHaveLength(20);
    expect(parseRetrySchedule(Array(21).fill('1s').join(','))).toEqual({ error: 'at most 20 retries' });
  });

  it.each([
    ['', ''],
    ['5s,,5m', ''],
    ['5s,', ''],
    ['5', '5'],
    ['1.5s', '1.5s'],
    ['-5s', '-5s'],
    ['5 s', '5 s'],
    ['5S', '5S'],
    ['1w', '1w'],
    ['5 minutes', '5 minutes'],
    ['soon', 'soon'],
    ['5s;5m', '5s;5m'],
  ])('refuses %j, quoting the part %j it cannot read', (text, part) => {
    expect(parseRetrySchedule(text)).toEqual({ error: `"${part}" is not a delay such as 5s, 5m, 2h or 1d` });
  });
});

describe('nextAttemptAt', () => {
  const schedule = [5 * SECOND, 5 * MINUTE, 30 * MINUTE];

  it('schedules the attempt after each failed one by the next delay, counted from now', () => {
    expect(nextAttemptAt(schedule, 1, null, NOW)).toBe(NOW + 5 * SECOND);
    expect(nextAttemptAt(schedule, 2, null, NOW)).toBe(NOW + 5 * MINUTE);
    expect(nextAttemptAt(schedule, 3, null, NOW)).toBe(NOW + 30 * MINUTE);
  });

  it('has no attempt left once every delay is used: one attempt at once and one per delay', () => {
    expect(nextAttemptAt(schedule, schedule.length + 1, null, NOW)).toBeUndefined();
    expect(nextAttemptAt(schedule, 10, null, NOW)).toBeUndefined();
    expect(nextAttemptAt([], 1, null, NOW)).toBeUndefined();
  });

  it('ends a delivery at maxAttempts, sooner than the schedule would (a manual retry makes one attempt)', () => {
    // A delivery that failed twice, retried by hand: max 3 attempts, so the third is its last.
    expect(nextAttemptAt(schedule, 3, 3, NOW)).toBeUndefined();
    expect(nextAttemptAt(schedule, 4, 3, NOW)).toBeUndefined();
    // A failed delivery (every delay used) retried by hand gets its one attempt, and no more after it.
    expect(nextAttemptAt(schedule, 4, 4, NOW)).toBeUndefined();
  });

  it('follows the schedule while maxAttempts is not reached', () => {
    expect(nextAttemptAt(schedule, 1, 3, NOW)).toBe(NOW + 5 * SECOND);
    expect(nextAttemptAt(schedule, 2, 3, NOW)).toBe(NOW + 5 * MINUTE);
  });

  it('retries at once on a zero delay', () => {
    expect(nextAttemptAt([0, 0], 1, null, NOW)).toBe(NOW);
  });
});

describe('endpointBackoffMs', () => {
  const schedule = [5 * SECOND, 5 * MINUTE];

  it('backs a failing endpoint off for as long as it has been failing, so the wait doubles', () => {
    expect(endpointBackoffMs(schedule, 20 * SECOND)).toBe(20 * SECOND);
    expect(endpointBackoffMs(schedule, 40 * SECOND)).toBe(40 * SECOND);
  });

  it('waits at least the first delay of the schedule, and at most 5 minutes', () => {
    expect(endpointBackoffMs(schedule, 0)).toBe(5 * SECOND);
    expect(endpointBackoffMs(schedule, 3 * 24 * 60 * MINUTE)).toBe(MAX_ENDPOINT_BACKOFF_MS);
    expect(MAX_ENDPOINT_BACKOFF_MS).toBe(5 * MINUTE);
    expect(endpointBackoffMs([], 0)).toBe(0);
  });
});
