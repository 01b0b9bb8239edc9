import { type AttemptLimit, AttemptWindows, takeAttempt } from '../../core/attempt-windows.js';
import { AppError } from '../../core/errors.js';
import { emailSchema, parseInput } from '../../core/inputs.js';
import type { Clock } from '../../core/clock.js';
import type { PasswordHasher } from './passwords.js';
import type { UserRecord } from '../../store/store.js';
import type { IssuedSession } from '../../contract/session.js';
import { issueSession, type TokenDeps } from './tokens.js';

/** docs/management-api.md: sign-in. Throttling, not lockout: a stranger's wrong guesses do not keep the owner out. */
export interface SignInLimits {
  /** Attempts one IP address may make per window, whatever the accounts and outcomes. */
  perIp: AttemptLimit;
  /** Failed attempts one IP address may make on one account per window; a success clears them. */
  perAccountAndIp: AttemptLimit;
  /** Failed attempts one account may take per window from all addresses: the ceiling on spread-out guessing. */
  perAccount: AttemptLimit;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  perIp: { attempts: 30, windowSeconds: 60 },
  perAccountAndIp: { attempts: 5, windowSeconds: 15 * 60 },
  // OWASP ASVS 2.2.1: no more than 100 failed attempts per hour on a single account.
  perAccount: { attempts: 100, windowSeconds: 60 * 60 },
};

/**
 * The attempt windows of sign-in, kept between requests: per address, per account and address, and per
 * account (docs/management-api.md: sign-in).
 */
export class SignInThrottle {
  readonly perIp: AttemptWindows;
  readonly perAccountAndIp: AttemptWindows;
  readonly perAccount: AttemptWindows;

  constructor(limits: SignInLimits, clock: Clock) {
    this.perIp = new AttemptWindows(limits.perIp, clock);
    this.perAccountAndIp = new AttemptWindows(limits.perAccountAndIp, clock);
    this.perAccount = new AttemptWindows(limits.perAccount, clock);
  }
}

/** What sign-in takes: the accounts, the bounded hasher all scrypt work goes through, and the token keys. */
export type SignInDeps = TokenDeps<'users'> & { passwords: PasswordHasher };

/**
 * Password sign-in, throttled per address, per account and address, and per account (docs/management-api.md: sign-in).
 * An unknown email costs the same scrypt work as a wrong password, so timing does not tell which accounts
 * exist; all scrypt work goes through the hasher's bound.
 */
export async function signIn(
  deps: SignInDeps,
  throttle: SignInThrottle,
  input: { email: string; password: string },
  ip: string,
): Promise<{ user: UserRecord; session: IssuedSession }> {
  takeAttempt(throttle.perIp, ip, 'ip');
  const email = parseInput(emailSchema, input.email, 'email');
  const accountAndIp = JSON.stringify([email, ip]);
  // Each attempt counts as a failure before its password is checked, so concurrent guesses cannot slip
  // past a limit while earlier ones are still being verified; anything but a wrong password gives it back.
  takeAttempt(throttle.perAccountAndIp, accountAndIp, 'account_and_ip');
  try {
    takeAttempt(throttle.perAccount, email, 'account');
  } catch (error) {
    throttle.perAccountAndIp.giveBack(accountAndIp);
    throw error;
  }

  let user: UserRecord | undefined;
  let passwordMatches: boolean;
  try {
    user = await deps.store.users.findByEmail(email);
    passwordMatches = await deps.passwords.verify(input.password, user?.passwordHash ?? null);
  } catch (error) {
    throttle.perAccountAndIp.giveBack(accountAndIp);
    throttle.perAccount.giveBack(email);
    throw error;
  }
  if (!user || !passwordMatches) {
    throw new AppError('invalid_credentials');
  }
  throttle.perAccountAndIp.clear(accountAndIp);
  throttle.perAccount.giveBack(email);
  return { user, session: await issueSession(deps, user) };
}
