import { availableParallelism } from 'node:os';
import pLimit from 'p-limit';
import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import { AppError } from '../../core/errors.js';

/** scrypt's cost parameters: they travel with each hash, so a hash made with others still verifies. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's scrypt floor: N=2^17, r=8, p=1 (128 MiB · 1 iteration). */
export const SCRYPT_PARAMS: ScryptParams = { N: 2 ** 17, r: 8, p: 1 };

/**
 * The parameters new hashes get. Under a test runner only (NODE_ENV=test, as Vitest sets it, and so the CLI
 * processes tests start) BRAND_CONTEXT_TEST_SCRYPT_N may lower N, so that suites signing in hundreds of times
 * spend milliseconds, not minutes, on it; a running service never reads it.
 */
export function scryptParamsFrom(env: NodeJS.ProcessEnv): ScryptParams {
  const testN = env.NODE_ENV === 'test' ? Number(env.BRAND_CONTEXT_TEST_SCRYPT_N) : Number.NaN;
  return testN >= 1024 && Number.isInteger(Math.log2(testN)) ? { ...SCRYPT_PARAMS, N: testN } : SCRYPT_PARAMS;
}
const KEY_LENGTH = 32;
/** How long a caller turned away should wait: a derivation takes a fraction of a second. */
const RETRY_AFTER_S = 1;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, { ...options, maxmem: 256 * 1024 * 1024 }, (error, key) => {
      if (error) reject(error);
      else resolve(key);
    });
  });
}

export interface PasswordWorkLimits {
  /** Derivations running at once: each holds 128 MiB while it runs. */
  concurrent: number;
  /** Derivations waiting for a free slot; callers beyond them get 503 `sign_in_busy`. */
  queued: number;
}

/**
 * One per CPU core (scrypt is CPU-bound, more at once only adds memory), at most libuv's default thread
 * pool of 4, which file and DNS work share; the queue holds a few rounds of work.
 */
const CONCURRENT = Math.min(availableParallelism(), 4);
export const DEFAULT_PASSWORD_WORK_LIMITS: PasswordWorkLimits = {
  concurrent: CONCURRENT,
  queued: 4 * CONCURRENT,
};

/**
 * Hashes and checks passwords with a bound on the scrypt work in flight, so a burst of sign-ins cannot
 * exhaust memory (docs/management-api.md: sign-in): at most `concurrent` derivations run, `queued` more wait, and the rest
 * are refused at once with 503 and Retry-After.
 */
export class PasswordHasher {
  private readonly slots: pLimit.Limit;

  constructor(
    private readonly limits: PasswordWorkLimits = DEFAULT_PASSWORD_WORK_LIMITS,
    private readonly params: ScryptParams = SCRYPT_PARAMS,
  ) {
    this.slots = pLimit(limits.concurrent);
  }

  /** `scrypt$N$r$p$salt$hash`, salt and hash in base64url. */
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const { params } = this;
    const hash = await this.bounded(() => derive(password, salt, params));
    return [
      'scrypt',
      params.N,
      params.r,
      params.p,
      salt.toString('base64url'),
      hash.toString('base64url'),
    ].join('$');
  }

  /**
   * Whether `password` matches `stored`. Without a stored hash (no such account, or no password) the same
   * derivation runs on a throwaway salt and the answer is false, so timing does not tell which accounts exist.
   */
  async verify(password: string, stored: string | null): Promise<boolean> {
    if (stored === null) {
      await this.bounded(() => derive(password, randomBytes(16), this.params));
      return false;
    }
    const [scheme, n, r, p, salt, hash] = stored.split('$');
    if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
    const expected = Buffer.from(hash, 'base64url');
    const actual = await this.bounded(() =>
      derive(password, Buffer.from(salt, 'base64url'), { N: Number(n), r: Number(r), p: Number(p) }),
    );
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  private bounded<T>(work: () => Promise<T>): Promise<T> {
    // Counted together: p-limit moves a queued derivation to active only on a later tick.
    if (this.slots.activeCount + this.slots.pendingCount >= this.limits.concurrent + this.limits.queued) {
      throw new AppError(
        'sign_in_busy',
        { retryAfter: RETRY_AFTER_S },
        { headers: { 'retry-after': String(RETRY_AFTER_S) } },
      );
    }
    return this.slots(work);
  }
}

/** The process's hasher: sign-in, account links and password setting share its bound (the app's `deps.passwords`). */
export const passwordHasher = new PasswordHasher(DEFAULT_PASSWORD_WORK_LIMITS, scryptParamsFrom(process.env));

/** Setting a password (accounts created with one, `users set-password`): through the shared bound. */
export function hashPassword(password: string): Promise<string> {
  return passwordHasher.hash(password);
}
