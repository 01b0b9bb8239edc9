import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../core/errors.js';
import { emailSchema, parseInput } from '../core/inputs.js';
import type { Deps } from './deps.js';
import { type PasswordHasher, passwordHasher } from './passwords.js';
import type { UserRecord } from '../store/store.js';
import type { IssuedSession, TokenService } from './tokens.js';

interface Limit {
  attempts: number;
  windowSeconds: number;
}

/** README: sign-in. Throttling, not lockout: a stranger's wrong guesses do not keep the owner out. */
export interface SignInLimits {
  /** Attempts one IP address may make per window, whatever the accounts and outcomes. */
  perIp: Limit;
  /** Failed attempts one IP address may make on one account per window; a success clears them. */
  perAccountAndIp: Limit;
  /** Failed attempts one account may take per window from all addresses: the ceiling on spread-out guessing. */
  perAccount: Limit;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perIp: { attempts: 30, windowSeconds: 60 },
  perAccountAndIp: { attempts: 5, windowSeconds: 15 * 60 },
  // OWASP ASVS 2.2.1: no more than 100 failed attempts per hour on a single account.
  perAccount: { attempts: 100, windowSeconds: 60 * 60 },
};

function limiter({ attempts, windowSeconds }: Limit): RateLimiterMemory {
  return new RateLimiterMemory({ points: attempts, duration: windowSeconds });
}

/**
 * Takes a point for an attempt, or answers 429 with Retry-After. A refused attempt keeps no point (the
 * limiter counts it anyway): only the attempts let through are counted, so refunds leave the count right.
 */
async function take(limits: RateLimiterMemory, key: string, what: string): Promise<void> {
  try {
    await limits.consume(key);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    await limits.reward(key);
    const seconds = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw new AppError('rate_limited', `Too many ${what}; try again in ${String(seconds)} s.`, [], {
      'retry-after': String(seconds),
    });
  }
}

/** Returns an attempt's point, unless its window has already ended (a fresh window would start below zero). */
async function giveBack(limits: RateLimiterMemory, key: string): Promise<void> {
  if (await limits.get(key)) await limits.reward(key);
}

/**
 * Password sign-in, throttled per address, per account and address, and per account (README: sign-in).
 * An unknown email costs the same scrypt work as a wrong password, so timing does not tell which accounts
 * exist; all scrypt work goes through the hasher's bound.
 */
export class SignInService {
  private readonly perIp: RateLimiterMemory;
  private readonly perAccountAndIp: RateLimiterMemory;
  private readonly perAccount: RateLimiterMemory;

  constructor(
    private readonly deps: Deps,
    private readonly tokens: TokenService,
    limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS,
    private readonly passwords: PasswordHasher = passwordHasher,
  ) {
    this.perIp = limiter(limits.perIp);
    this.perAccountAndIp = limiter(limits.perAccountAndIp);
    this.perAccount = limiter(limits.perAccount);
  }

  async signIn(
    input: { email: string; password: string },
    ip: string,
  ): Promise<{ user: UserRecord; session: IssuedSession }> {
    await take(this.perIp, ip, 'sign-in attempts from your address');
    const email = parseInput(emailSchema, input.email, 'email');
    const accountAndIp = JSON.stringify([email, ip]);
    // Each attempt counts as a failure before its password is checked, so concurrent guesses cannot slip
    // past a limit while earlier ones are still being verified; anything but a wrong password gives it back.
    await take(this.perAccountAndIp, accountAndIp, 'failed sign-ins to this account from your address');
    try {
      await take(this.perAccount, email, 'failed sign-ins to this account');
    } catch (error) {
      await giveBack(this.perAccountAndIp, accountAndIp);
      throw error;
    }

    let user: UserRecord | undefined;
    let passwordMatches: boolean;
    try {
      user = await this.deps.store.findUserByEmail(email);
      passwordMatches = await this.passwords.verify(input.password, user?.passwordHash ?? null);
    } catch (error) {
      await Promise.all([giveBack(this.perAccountAndIp, accountAndIp), giveBack(this.perAccount, email)]);
      throw error;
    }
    if (!user || !passwordMatches) {
      throw new AppError('invalid_credentials', 'The email or password is wrong.');
    }
    await Promise.all([this.perAccountAndIp.delete(accountAndIp), giveBack(this.perAccount, email)]);
    return { user, session: await this.tokens.issueSession(user) };
  }
}
