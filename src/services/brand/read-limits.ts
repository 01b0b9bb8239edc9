import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimit } from '../../config.js';
import { AttemptWindows } from '../../core/attempt-windows.js';
import { systemClock } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import type { MaybePromise } from '../shared/feed-cache.js';
import type { Principal } from '../auth/credentials.js';

/** Where the read counts live in Redis: `brand-context:reads:<credential>`. */
export const READ_LIMIT_KEY_PREFIX = 'brand-context:reads';
/** The policy's name in the RateLimit-Policy and RateLimit headers (draft-ietf-httpapi-ratelimit-headers). */
const POLICY_NAME = '"reads"';
/**
 * A Redis that takes longer than this is treated as down for that read: the node's own count decides, so a
 * stalled Redis slows no read by more than this.
 */
const REDIS_COMMAND_TIMEOUT_MS = 200;
/**
 * After Redis fails a read, the node counts on its own this long before asking Redis again (one read at a
 * time): a stalled Redis costs one read the command timeout every few seconds, not every read.
 */
export const REDIS_RETRY_MS = 3_000;
/** Fallbacks further apart than this belong to different outages, each logged once. */
const OUTAGE_GAP_MS = 60_000;
/** Redis's answers to a missing or wrong password (AUTH, or a command sent without it). */
const REFUSED_PASSWORD = /WRONGPASS|NOAUTH|invalid password/i;

/** How a node logs Redis outages: once when it falls back to its own count, once when Redis is back. */
export interface OutageLog {
  error(values: object, message: string): void;
  warn(values: object, message: string): void;
  info(values: object, message: string): void;
}

export interface ReadLimitSettings {
  /** Reads per credential and window; the window is counted in whole seconds. */
  limit: RateLimit;
  /** One budget across every node on this Redis (`connectRedis`); without it each node counts on its own. */
  redis?: Redis;
  /** Where the counts live in Redis; tests give each run its own. */
  keyPrefix?: string;
  /** How long Redis is left alone after it failed (REDIS_RETRY_MS); tests choose their own. */
  redisRetryMs?: number;
}

/**
 * The Redis client of the read limits: commands fail at once while it is disconnected (no offline queue)
 * and after REDIS_COMMAND_TIMEOUT_MS when it does not answer, so an outage never holds a read. It reconnects
 * by itself; whoever opened it closes it (`quit`) at shutdown.
 */
export async function connectRedis(url: string): Promise<Redis> {
  // Loaded only when REDIS_URL is set: a node without it starts without the client.
  const { Redis } = await import('ioredis');
  return new Redis(url, {
    enableOfflineQueue: false,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    connectionName: 'brand-context',
  });
}

/** Where the client reaches Redis, for the logs: host:port or the socket's path, never the password. */
export function redisAddress(redis: Redis): string {
  const { path, host, port } = redis.options;
  return path ?? `${host ?? 'localhost'}:${String(port ?? 6379)}`;
}

/** An error's message without the Redis password, which a URL or a refused AUTH might echo. */
function describeRedisError(error: unknown, password: string): string {
  const message = error instanceof Error ? error.message : String(error);
  return password === '' ? message : message.split(password).join('***');
}

/** Which budget a principal reads from: one per key, per sign-in session, per personal token, or per user. */
function budgetOf(principal: Principal): string {
  switch (principal.kind) {
    case 'key':
      return `key:${principal.id}`;
    case 'session':
      return `session:${principal.sessionId}`;
    case 'personal_token':
      return `token:${principal.tokenId}`;
    // An identity provider's tokens are not recorded: the user is what they have in common.
    case 'provider_token':
      return `user:${principal.user.id}`;
  }
}

/** Whole seconds until `ms` have passed, at least 1 (Retry-After and the RateLimit header's `t`). */
function secondsOf(ms: number, windowSeconds: number): number {
  return ms > 0 ? Math.ceil(ms / 1000) : windowSeconds;
}

/**
 * The per-credential budget of the read operation (docs/configuration.md "Configuration", `RATE_LIMIT_READS`). Every read
 * after authentication takes one point, 304s included; over the budget the read is refused with 429
 * `rate_limited`. With Redis the budget is shared by every node; when Redis is down or slow, each node
 * counts on its own with the same budget, so reads go on and one credential still gets at most the
 * budget per node.
 */
export class ReadLimits {
  /** The RateLimit-Policy header, the same on every answer. */
  readonly policy: string;
  /** Reads this node counted on its own because Redis failed or was being given time (a metric). */
  countedLocally = 0;
  /**
   * The node's own count: the whole budget without Redis, the insurance while Redis fails. Counted at once,
   * with no promise: without Redis, a read waits for nothing here.
   */
  private readonly local: AttemptWindows;
  private readonly points: number;
  private readonly redis: Redis | undefined;
  private readonly redisCount: RateLimiterRedis | undefined;
  private readonly windowSeconds: number;
  private readonly log: OutageLog;
  private readonly password: string;
  /** Redis failed and has not answered since: reads are counted on the node. */
  private redisDown = false;
  /** While Redis is down, when one read may ask it again; a read asking it now holds `probing`. */
  private retryAt = 0;
  private probing = false;
  private lastFallbackAt = 0;
  private readonly retryMs: number;

  constructor(settings: ReadLimitSettings, log: OutageLog) {
    const { points, windowMs } = settings.limit;
    this.points = points;
    this.windowSeconds = Math.max(1, Math.round(windowMs / 1000));
    this.policy = `${POLICY_NAME};q=${points};w=${this.windowSeconds}`;
    this.log = log;
    this.retryMs = settings.redisRetryMs ?? REDIS_RETRY_MS;
    // On the system clock, as Redis counts: a window is real time, whatever clock the app was given.
    this.local = new AttemptWindows({ attempts: points, windowSeconds: this.windowSeconds }, systemClock);
    const { redis } = settings;
    this.redis = redis;
    this.password = redis?.options.password ?? '';
    if (redis !== undefined) {
      this.watch(redis);
      this.redisCount = new RateLimiterRedis({
        points,
        duration: this.windowSeconds,
        storeClient: redis,
        keyPrefix: settings.keyPrefix ?? READ_LIMIT_KEY_PREFIX,
        rejectIfRedisNotReady: true,
        // A credential over its budget is refused from memory for the rest of the window, without asking Redis.
        inMemoryBlockOnConsumed: points + 1,
      });
    }
  }

  /** Whether the budget is meant to be shared through Redis (REDIS_URL); metrics export `shared` only then. */
  get throughRedis(): boolean {
    return this.redis !== undefined;
  }

  /** True while reads share one budget through Redis, false while this node counts on its own (a metric). */
  get shared(): boolean {
    return this.redis !== undefined && !this.redisDown && this.redis.status === 'ready';
  }

  /**
   * Takes one read from the principal's budget: the RateLimit header's value (what is left, and when the
   * window ends), or 429 `rate_limited` with Retry-After and RateLimit (RateLimit-Policy is `policy`), thrown
   * at once without Redis, a promise's with it.
   */
  take(principal: Principal): MaybePromise<string> {
    const budget = budgetOf(principal);
    return this.redisCount === undefined ? this.countHere(budget) : this.takeShared(this.redisCount, budget);
  }

  /** One read counted by the node itself. */
  private countHere(budget: string): string {
    const counted = this.local.count(budget);
    if (typeof counted === 'number') throw this.refusal(counted);
    return this.header(this.points - counted.count, counted.endsAt - Date.now());
  }

  /** The RateLimit header: reads left, and whole seconds until the window ends. */
  private header(remaining: number, msBeforeNext: number): string {
    return `${POLICY_NAME};r=${Math.max(0, remaining)};t=${secondsOf(msBeforeNext, this.windowSeconds)}`;
  }

  /** 429 for the rest of the window (RateLimit-Policy is the caller's to send on every answer). */
  private refusal(msBeforeNext: number): AppError {
    const seconds = secondsOf(msBeforeNext, this.windowSeconds);
    return new AppError(
      'rate_limited',
      { limit: 'reads', retryAfter: seconds },
      { headers: { 'retry-after': String(seconds), ratelimit: `${POLICY_NAME};r=0;t=${seconds}` } },
    );
  }

  /**
   * Asks Redis, or the node's own count while Redis is down (a circuit breaker): after a failure, Redis is
   * left alone for REDIS_RETRY_MS, then one read asks it again while the others go on counting locally.
   */
  private takeShared(limiter: RateLimiterRedis, budget: string): MaybePromise<string> {
    if (this.redisDown) {
      if (this.probing || Date.now() < this.retryAt) return this.countLocally(budget);
      this.probing = true;
    }
    return limiter.consume(budget).then(
      (result) => {
        this.answered();
        return this.header(result.remainingPoints, result.msBeforeNext);
      },
      (error: unknown) => {
        // A refusal: Redis counted the read over budget (or its in-memory block did; then Redis is not proven back).
        if (error instanceof RateLimiterRes) {
          this.probing = false;
          throw this.refusal(error.msBeforeNext);
        }
        this.failed(
          error instanceof Error && error.message === 'Command timed out'
            ? `Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`
            : describeRedisError(error, this.password),
        );
        return this.countLocally(budget);
      },
    );
  }

  private countLocally(budget: string): string {
    this.countedLocally++;
    return this.countHere(budget);
  }

  /** A Redis command succeeded: if Redis was down, it is back (a stalled Redis resumes on its connection). */
  private answered(): void {
    this.probing = false;
    if (this.redisDown) this.back();
  }

  private failed(reason: string): void {
    this.probing = false;
    this.retryAt = Date.now() + this.retryMs;
    this.fellBack(reason);
  }

  private back(): void {
    this.redisDown = false;
    this.retryAt = 0;
    this.log.info({}, 'Redis is back: reads share one budget across nodes again');
  }

  /** Logs the client's own view of outages: the first error of each, and the reconnection that ends it. */
  private watch(redis: Redis): void {
    redis.on('error', (error: unknown) => {
      // A read asking Redis now settles by itself; the next one waits for the retry delay.
      this.retryAt = Date.now() + this.retryMs;
      this.fellBack(describeRedisError(error, this.password));
    });
    redis.on('ready', () => {
      if (this.redisDown) this.back();
    });
  }

  private fellBack(reason: string): void {
    const now = Date.now();
    if (!this.redisDown || now - this.lastFallbackAt > OUTAGE_GAP_MS) {
      if (REFUSED_PASSWORD.test(reason)) {
        this.log.error(
          { reason },
          'Redis refused the password of REDIS_URL: each node counts reads against RATE_LIMIT_READS on its own',
        );
      } else {
        this.log.warn(
          { reason },
          'Redis is unreachable: each node counts reads against RATE_LIMIT_READS on its own until it is back',
        );
      }
    }
    this.redisDown = true;
    this.lastFallbackAt = now;
  }
}
