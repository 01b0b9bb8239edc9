import type { Clock } from '../../src/core/clock.js';

/** A clock that moves only when told to, so 90 days pass in a microsecond. */
export class ManualClock implements Clock {
  constructor(private current = Date.UTC(2026, 10, 20, 10, 0, 0)) {}

  now(): number {
    return this.current;
  }

  advance(ms: number): void {
    this.current += ms;
  }
}

export const DAY_MS = 24 * 60 * 60 * 1000;
