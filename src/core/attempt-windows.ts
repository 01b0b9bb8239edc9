import type { Clock } from './clock.js';
import { AppError, type DetailValues } from './errors.js';

/** At most `attempts` per key in a window of `windowSeconds`, which starts at a key's first attempt. */
export interface AttemptLimit {
  attempts: number;
  windowSeconds: number;
}

interface Window {
  count: number;
  endsAt: number;
}

/** Below this many keys, ended windows are left for the next sweep rather than searched for. */
const MIN_SWEEP_SIZE = 1024;

/**
 * Fixed-window attempt counts per key, timed by the injected clock (docs/management-api.md: sign-in), so tests move a
 * manual clock instead of waiting for a window to end. Ended windows are swept whenever the number of
 * keys has doubled since the last sweep: memory stays bounded by the keys seen in one window.
 */
export class AttemptWindows {
  private readonly windows = new Map<string, Window>();
  private sweepAtSize = MIN_SWEEP_SIZE;

  constructor(
    private readonly limit: AttemptLimit,
    private readonly clock: Clock,
  ) {}

  /**
   * Counts an attempt and answers undefined, or, when the key has used up its window, counts nothing and
   * answers the milliseconds until the window ends.
   */
  take(key: string): number | undefined {
    const counted = this.count(key);
    return typeof counted === 'number' ? counted : undefined;
  }

  /**
   * `take`, answering the key's window with this attempt counted in it (its attempts, and when it ends), or,
   * when the window is used up, the milliseconds until it ends: one lookup for a caller that shows both.
   */
  count(key: string): Readonly<Window> | number {
    const now = this.clock.now();
    const window = this.liveWindow(key, now);
    if (!window) return this.start(key, now);
    if (window.count >= this.limit.attempts) return window.endsAt - now;
    window.count++;
    return window;
  }

  /** Uncounts an attempt, unless its window has already ended (a fresh window would start below zero). */
  giveBack(key: string): void {
    const window = this.liveWindow(key, this.clock.now());
    if (window) window.count--;
  }

  /** Forgets a key's attempts. */
  clear(key: string): void {
    this.windows.delete(key);
  }

  private liveWindow(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    return window && window.endsAt > now ? window : undefined;
  }

  private start(key: string, now: number): Window {
    if (this.windows.size >= this.sweepAtSize) {
      for (const [other, window] of this.windows) if (window.endsAt <= now) this.windows.delete(other);
      this.sweepAtSize = Math.max(MIN_SWEEP_SIZE, 2 * this.windows.size);
    }
    const window = { count: 1, endsAt: now + this.limit.windowSeconds * 1000 };
    this.windows.set(key, window);
    return window;
  }
}

/** Which limit refused an attempt, as the 429's detail names it. */
type RateLimit = DetailValues<'rate_limited'>['limit'];

/** Counts an attempt, or answers 429 `rate_limited` with Retry-After (a refused attempt is not counted). */
export function takeAttempt(windows: AttemptWindows, key: string, limit: RateLimit): void {
  const msBeforeNext = windows.take(key);
  if (msBeforeNext === undefined) return;
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  throw new AppError(
    'rate_limited',
    { limit, retryAfter: seconds },
    { headers: { 'retry-after': String(seconds) } },
  );
}
