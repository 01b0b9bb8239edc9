import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../core/errors.js';
import { emailSchema, parseInput } from '../core/inputs.js';
import type { Deps } from './deps.js';
import { hashPassword, verifyPassword } from './passwords.js';
import type { UserRecord } from '../store/store.js';
import type { IssuedSession, TokenService } from './tokens.js';

export interface SignInLimits {
  /** Attempts one IP address may make per window, whatever the account. */
  perIp: { attempts: number; windowSeconds: number };
  /** Failed attempts one account may take per window, from anywhere. */
  perAccount: { attempts: number; windowSeconds: number };
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perIp: { attempts: 30, windowSeconds: 60 },
  perAccount: { attempts: 5, windowSeconds: 15 * 60 },
};

function throttled(retryAfterMs: number): AppError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new AppError('rate_limited', `Too many sign-in attempts; try again in ${seconds} s.`, [], {
    'retry-after': String(seconds),
  });
}

async function consumeOrThrottle(limiter: RateLimiterMemory, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) throw throttled(rejection.msBeforeNext);
    throw rejection;
  }
}

/**
 * Password sign-in, throttled per IP address and per account against guessing. An unknown email costs the
 * same scrypt work as a wrong password, so timing does not tell which accounts exist.
 */
export class SignInService {
  private readonly perIp: RateLimiterMemory;
  private readonly perAccount: RateLimiterMemory;
  private decoyHash: Promise<string> | undefined;

  constructor(
    private readonly deps: Deps,
    private readonly tokens: TokenService,
    limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
  ) {
    this.perIp = new RateLimiterMemory({
      points: limits.perIp.attempts,
      duration: limits.perIp.windowSeconds,
    });
    this.perAccount = new RateLimiterMemory({
      points: limits.perAccount.attempts,
      duration: limits.perAccount.windowSeconds,
    });
  }

  async signIn(
    input: { email: string; password: string },
    ip: string,
  ): Promise<{ user: UserRecord; session: IssuedSession }> {
    await consumeOrThrottle(this.perIp, ip);
    const email = parseInput(emailSchema, input.email, 'email');
    // The attempt takes its point before the password is checked, so concurrent guesses cannot all slip
    // past the limit while the first ones are still being verified; a success gives the points back.
    await consumeOrThrottle(this.perAccount, email);

    const user = await this.deps.store.findUserByEmail(email);
    this.decoyHash ??= hashPassword('decoy password for unknown accounts');
    const passwordMatches = await verifyPassword(
      input.password,
      user?.passwordHash ?? (await this.decoyHash),
    );
    if (!user?.passwordHash || !passwordMatches) {
      throw new AppError('invalid_credentials', 'The email or password is wrong.');
    }
    await this.perAccount.delete(email);
    return { user, session: await this.tokens.issueSession(user) };
  }
}
