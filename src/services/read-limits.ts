import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimit } from '../config.js';
import { AppError } from '../core/errors.js';
import type { Principal } from './credentials.js';

/** Where the read counts live in Redis: `brand-context:reads:<credential>`. */
export const READ_LIMIT_KEY_PREFIX = 'brand-context:reads';
/** The policy's name in the RateLimit-Policy and RateLimit headers (draft-ietf-httpapi-ratelimit-headers). */
const POLICY_NAME = '"reads"';
/**
 * A Redis that takes longer than this is treated as down for that read: the node's own count decides, so a
 * stalled Redis slows no read by more than this.
 */
const REDIS_COMMAND_TIMEOUT_MS = 200;
/** Fallbacks further apart than this belong to different outages, each logged once. */
const OUTAGE_GAP_MS = 60_000;

/** How a node logs Redis outages: once when it falls back to its own count, once when Redis is back. */
export interface OutageLog {
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

/** The node's own count, asked by the Redis limiter when Redis fails; tells the read limits it was. */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: ConstructorParameters<typeof RateLimiterMemory>[0],
    private readonly onUse: () => void,
  ) {
    super(options);
  }

  override consume(...args: Parameters<RateLimiterMemory['consume']>): Promise<RateLimiterRes> {
    this.onUse();
    return super.consume(...args);
  }
}

/**
 * The per-credential budget of the read operation (README "Configuration", `RATE_LIMIT_READS`). Every read
 * after authentication takes one point, 304s included; over the budget the read is refused with 429
 * `rate_limited`. With Redis the budget is shared by every node; when Redis is down or slow, each node
 * counts on its own with the same budget (rate-limiter-flexible's insurance limiter), so reads go on and
 * one credential still gets at most the budget per node.
 */
export class ReadLimits {
  /** The RateLimit-Policy header, the same on every answer. */
  readonly policy: string;
  private readonly limiter: RateLimiterMemory | RateLimiterRedis;
  private readonly windowSeconds: number;
  private readonly counted: (result: RateLimiterRes) => string;
  private readonly refused: (result: unknown) => never;
  private redisDown = false;
  private lastFallbackAt = 0;

  constructor(settings: ReadLimitSettings, log: OutageLog) {
    const { points, windowMs } = settings.limit;
    this.windowSeconds = Math.max(1, Math.round(windowMs / 1000));
    this.policy = `${POLICY_NAME};q=${points};w=${this.windowSeconds}`;
    // No prefix in memory: the node's own map holds nothing else, and the key needs no second string.
    const options = { points, duration: this.windowSeconds, keyPrefix: '' };
    const { redis } = settings;
    if (redis === undefined) {
      this.limiter = new RateLimiterMemory(options);
    } else {
      this.watch(redis, log);
      // Only asked when Redis failed: that is when an outage begins, whatever the client has noticed yet.
      const insurance = new InsuranceLimiter(options, () => {
        this.fellBack(
          log,
          redis.status === 'ready'
            ? `Redis did not answer within ${REDIS_COMMAND_TIMEOUT_MS} ms`
            : `the Redis connection is ${redis.status}`,
        );
      });
      this.limiter = new RateLimiterRedis({
        ...options,
        storeClient: redis,
        keyPrefix: settings.keyPrefix ?? READ_LIMIT_KEY_PREFIX,
        rejectIfRedisNotReady: true,
        // A credential over its budget is refused from memory for the rest of the window, without asking Redis.
        inMemoryBlockOnConsumed: points + 1,
        insuranceLimiter: insurance,
      });
    }
    // Built once: the read operation calls them on every request.
    this.counted = (result) => `${POLICY_NAME};r=${result.remainingPoints};t=${this.secondsLeft(result)}`;
    this.refused = (result) => {
      if (!(result instanceof RateLimiterRes)) throw result;
      const seconds = this.secondsLeft(result);
      throw new AppError(
        'rate_limited',
        { limit: 'reads', retryAfter: seconds },
        {
          headers: {
            'retry-after': String(seconds),
            'ratelimit-policy': this.policy,
            ratelimit: `${POLICY_NAME};r=0;t=${seconds}`,
          },
        },
      );
    };
  }

  /**
   * Takes one read from the principal's budget: the RateLimit header's value (what is left, and when the
   * window ends), or 429 `rate_limited` with Retry-After, RateLimit-Policy and RateLimit.
   */
  take(principal: Principal): Promise<string> {
    return this.limiter.consume(budgetOf(principal)).then(this.counted, this.refused);
  }

  private secondsLeft(result: RateLimiterRes): number {
    return secondsOf(result.msBeforeNext, this.windowSeconds);
  }

  /** Logs the client's own view of outages: the first error of each, and the reconnection that ends it. */
  private watch(redis: Redis, log: OutageLog): void {
    const password = redis.options.password ?? '';
    redis.on('error', (error: unknown) => {
      this.fellBack(log, describeRedisError(error, password));
    });
    redis.on('ready', () => {
      if (!this.redisDown) return;
      this.redisDown = false;
      log.info({}, 'Redis is back: reads share one budget across nodes again');
    });
  }

  private fellBack(log: OutageLog, reason: string): void {
    const now = Date.now();
    if (!this.redisDown || now - this.lastFallbackAt > OUTAGE_GAP_MS) {
      log.warn(
        { reason },
        'Redis is unreachable: each node counts reads against RATE_LIMIT_READS on its own until it is back',
      );
    }
    this.redisDown = true;
    this.lastFallbackAt = now;
  }
}
