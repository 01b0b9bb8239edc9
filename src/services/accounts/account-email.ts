import { randomBytes } from 'node:crypto';
import type { MemberInvite } from '../../contract/members.js';
import type { IssuedSession } from '../../contract/session.js';
import { type AttemptLimit, AttemptWindows, takeAttempt } from '../../core/attempt-windows.js';
import { newId } from '../../core/base62.js';
import { type Clock, isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { emailSchema, parseInput, passwordSchema } from '../../core/inputs.js';
import { ACCOUNT_LINK_PREFIXES, hashKey } from '../../core/secret-keys.js';
import type {
  AccountTokenRecord,
  Repositories,
  Store,
  UserRecord,
  WorkspaceRecord,
} from '../../store/store.js';
import { type AccountMessage, inviteMessage, passwordResetMessage } from './account-messages.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type QueuedMessage, queueEmail } from '../email/queue.js';
import type { PasswordHasher } from '../auth/passwords.js';
import type { SecretBox } from '../shared/secret-box.js';
import { issueSession, type TokenDeps } from '../auth/tokens.js';

/** What account email needs besides the store (docs/account-email.md "Account email"). */
export interface AccountMail {
  /** Seals the bodies, which carry one-time links. */
  secrets: SecretBox;
  /** The From header (EMAIL_FROM). */
  from: string;
  /** Where links point: PUBLIC_URL, or else the address the service listens on. */
  publicUrl: () => string;
}

type LinkPurpose = AccountTokenRecord['purpose'];

const HOUR_MS = 60 * 60 * 1000;
/** How long a link works: an invite waits for a week, a password reset for an hour. */
const LINK_LIFETIME_MS: Record<LinkPurpose, number> = { invite: 7 * 24 * HOUR_MS, password_reset: HOUR_MS };
/** The console's pages that take the links. */
const LINK_PATHS: Record<LinkPurpose, string> = {
  invite: '/accept-invite',
  password_reset: '/reset-password',
};
/** 256 random bits: a token no one guesses, so stored as a plain SHA-256 like keys. */
const TOKEN_BYTES = 32;

interface Link {
  url: string;
  expiresAt: string;
}

/**
 * Emails a one-time link to the account: `message` writes the email around the link, and the link's token
 * is stored (only its hash) with the id of the email that carries it.
 */
async function sendLink(
  store: Pick<Repositories, 'accountTokens' | 'email'>,
  mail: AccountMail,
  at: string,
  link: { purpose: LinkPurpose; user: UserRecord; workspaceId: string | null },
  message: (link: Link) => AccountMessage,
): Promise<Link> {
  const token = ACCOUNT_LINK_PREFIXES[link.purpose] + randomBytes(TOKEN_BYTES).toString('base64url');
  const sent: Link = {
    url: `${mail.publicUrl()}${LINK_PATHS[link.purpose]}?token=${token}`,
    expiresAt: new Date(Date.parse(at) + LINK_LIFETIME_MS[link.purpose]).toISOString(),
  };
  const email = await sendAccountEmail(
    store,
    mail,
    at,
    { email: link.user.email, workspaceId: link.workspaceId },
    message(sent),
  );
  await store.accountTokens.create({
    id: newId('lnk'),
    tokenHash: hashKey(token),
    purpose: link.purpose,
    userId: link.user.id,
    workspaceId: link.workspaceId,
    createdAt: at,
    expiresAt: sent.expiresAt,
    usedAt: null,
    replacedAt: null,
    messageId: email.message.id,
  });
  return sent;
}

/** Queues account email to one address, from EMAIL_FROM (in a transaction: as queueInvite says). */
export async function sendAccountEmail(
  store: Pick<Repositories, 'email'>,
  mail: Pick<AccountMail, 'secrets' | 'from'>,
  at: string,
  to: { email: string; workspaceId: string | null },
  message: AccountMessage,
): Promise<QueuedMessage> {
  return queueEmail(store, mail.secrets, at, {
    workspaceId: to.workspaceId,
    source: 'account',
    from: mail.from,
    to: [to.email],
    ...message,
  });
}

/**
 * Invites `user` into the workspace: a link to choose a password, replacing the invites sent before. Call it
 * in the transaction of the change that invites (the membership), so the email goes out only if it commits.
 */
export async function queueInvite(
  store: Pick<Repositories, 'accountTokens' | 'email'>,
  mail: AccountMail,
  at: string,
  invite: { user: UserRecord; workspace: WorkspaceRecord; invitedBy: Actor },
): Promise<MemberInvite> {
  const { user, workspace, invitedBy } = invite;
  await store.accountTokens.expireInvites(user.id, workspace.id, at, 'replaced');
  const link = await sendLink(
    store,
    mail,
    at,
    { purpose: 'invite', user, workspaceId: workspace.id },
    ({ url, expiresAt }) =>
      inviteMessage({
        workspaceName: workspace.name,
        invitedBy: invitedBy.kind === 'user' ? invitedBy.email : null,
        link: url,
        expiresAt,
      }),
  );
  return { sent_at: at, expires_at: link.expiresAt, delivery: 'queued', delivery_detail: null };
}

/** Throttles of the routes that take an email address or a link (docs/account-email.md "Account email"). */
export interface AccountLinkLimits {
  /** Password reset requests one IP address may make per window, whatever the addresses. */
  resetPerIp: AttemptLimit;
  /** Password reset requests for one email address per window, from all addresses: the emails it may get. */
  resetPerEmail: AttemptLimit;
  /** Invite and password reset links one IP address may try per window. */
  linkPerIp: AttemptLimit;
  /**
   * Reset requests whose links may wait at once to be made (after their answers); past them, 503: a flood
   * of requests queues no unbounded memory.
   */
  waitingResets: number;
}

export const DEFAULT_ACCOUNT_LINK_LIMITS: AccountLinkLimits = {
  resetPerIp: { attempts: 10, windowSeconds: 15 * 60 },
  resetPerEmail: { attempts: 3, windowSeconds: 60 * 60 },
  linkPerIp: { attempts: 20, windowSeconds: 15 * 60 },
  waitingResets: 1000,
};

/** What a 503 for too many waiting reset requests asks clients to wait, in seconds. */
const BUSY_RETRY_AFTER_SECONDS = 5;

/**
 * How long after its answer a reset request's work may start. Not at once: on a busy machine, work that
 * starts as the answer leaves competes for the CPU with the client reading it, which the timing bench
 * (bench/password-reset-timing.ts) saw as addresses with an account answered slower in 52-53 % of pairs.
 */
const AFTER_ANSWER_DELAY_MS = 20;

/** Where work done after its request's answer reports a failure: the request's logger. */
export interface AfterAnswerLog {
  error(details: object, message: string): void;
}

/**
 * Work that runs after the answer of the request that queued it, one piece at a time and in order (so one
 * address's links replace each other in the order they were asked for).
 */
class AfterAnswerQueue {
  private tail: Promise<void> = Promise.resolve();
  private waiting = 0;

  constructor(private readonly limit: number) {}

  /** Queues `work`, which reports its own failures; false, and nothing queued, when `limit` pieces wait. */
  add(work: () => Promise<void>): boolean {
    if (this.waiting >= this.limit) return false;
    this.waiting++;
    const answered = new Promise<void>((resolve) => setTimeout(resolve, AFTER_ANSWER_DELAY_MS));
    this.tail = this.tail
      .then(() => answered)
      .then(work)
      // `work` reports its own failures: whatever happens, the pieces after it still run.
      .catch(() => undefined)
      .finally(() => {
        this.waiting--;
      });
    return true;
  }

  /** Resolves once the work queued so far has run. */
  settled(): Promise<void> {
    return this.tail;
  }
}

/**
 * What the account-link routes keep between requests (docs/account-email.md "Account email"): their attempt
 * windows, and the reset requests whose work waits for their answers.
 */
export class AccountLinkThrottle {
  readonly resetPerIp: AttemptWindows;
  readonly resetPerEmail: AttemptWindows;
  readonly linkPerIp: AttemptWindows;
  private readonly resets: AfterAnswerQueue;

  constructor(limits: AccountLinkLimits, clock: Clock) {
    this.resetPerIp = new AttemptWindows(limits.resetPerIp, clock);
    this.resetPerEmail = new AttemptWindows(limits.resetPerEmail, clock);
    this.linkPerIp = new AttemptWindows(limits.linkPerIp, clock);
    this.resets = new AfterAnswerQueue(limits.waitingResets);
  }

  /** Queues a reset request's work after its answer; false, and nothing queued, when too many wait. */
  afterAnswer(work: () => Promise<void>): boolean {
    return this.resets.add(work);
  }

  /** Resolves once the links asked for so far are made (or have failed): before the store closes. */
  settled(): Promise<void> {
    return this.resets.settled();
  }
}

/**
 * The links of account email: accepting an invite, and asking for and confirming a password reset
 * (docs/account-email.md "Account email"). Each link works once, until it expires; setting a password through
 * one ends the account's other links, and a password reset ends its sign-in sessions. They take the accounts
 * and their links, the store's ping, the bounded hasher scrypt work goes through, and the token keys
 * (accepting an invite signs in).
 */
export type AccountLinkDeps = TokenDeps<'users' | 'workspaces' | 'accountTokens' | 'email' | 'audit'> & {
  store: Pick<Store, 'ping'>;
  passwords: PasswordHasher;
};

/** Sets the invited account's first password and signs it in, answering as POST /auth/v1/token does. */
export async function acceptInvite(
  deps: AccountLinkDeps,
  throttle: AccountLinkThrottle,
  input: { token: string; password: string },
  ip: string,
): Promise<IssuedSession> {
  const user = await setPasswordByLink(deps, throttle, 'invite', input, ip, async (tx, link, account, at) => {
    if (link.workspaceId === null) return;
    await recordAudit(tx, { kind: 'user', userId: account.id, email: account.email }, at, {
      workspaceId: link.workspaceId,
      action: 'member.invite_accepted',
      targetType: 'user',
      targetId: account.id,
      details: { email: account.email },
    });
  });
  return issueSession(deps, user);
}

/**
 * Queues a reset link for the account of `email`, if there is one. The caller learns nothing either way:
 * whether the address has an account is first asked after the answer (docs/account-email.md "Account email"), so the
 * work before the answer is the same for every address, throttled or not. That work asks the database for
 * a trivial answer, so that a request it could not serve is answered 503 rather than 202.
 * A request that is not served — 503, or its link could not be made after the answer (logged to `log`) —
 * does not count toward the limit per email address.
 */
export async function requestPasswordReset(
  deps: AccountLinkDeps,
  mail: AccountMail,
  throttle: AccountLinkThrottle,
  input: { email: string },
  ip: string,
  log: AfterAnswerLog,
): Promise<void> {
  takeAttempt(throttle.resetPerIp, ip, 'reset_ip');
  const email = parseInput(emailSchema, input.email, 'email');
  takeAttempt(throttle.resetPerEmail, email, 'reset_email');
  const at = isoAt(deps.clock);
  try {
    await deps.store.ping();
  } catch (error) {
    throttle.resetPerEmail.giveBack(email);
    throw error;
  }
  const queued = throttle.afterAnswer(async () => {
    try {
      await sendResetLink(deps, mail, email, at);
    } catch (error) {
      throttle.resetPerEmail.giveBack(email);
      log.error(
        { err: error },
        'a password reset request failed after its answer: no link was sent, and the request does not count toward the limit per email address',
      );
    }
  });
  if (!queued) {
    throttle.resetPerEmail.giveBack(email);
    throw new AppError(
      'service_unavailable',
      { reason: 'database', cause: 'too many password reset requests are waiting for it' },
      { headers: { 'retry-after': String(BUSY_RETRY_AFTER_SECONDS) } },
    );
  }
}

/** A reset request's work, after its answer: the link, if `email` has an account. */
async function sendResetLink(
  deps: Deps<'users' | 'accountTokens' | 'email'>,
  mail: AccountMail,
  email: string,
  at: string,
): Promise<void> {
  const user = await deps.store.users.findByEmail(email);
  if (!user) return;
  await deps.store.transaction(async (tx) => {
    // A new link replaces the earlier ones.
    await tx.accountTokens.expireUnused(user.id, 'password_reset', at, 'replaced');
    await sendLink(
      tx,
      mail,
      at,
      { purpose: 'password_reset', user, workspaceId: null },
      ({ url, expiresAt }) => passwordResetMessage({ email: user.email, link: url, expiresAt }),
    );
  });
}

/** Sets a new password through a reset link; every sign-in session issued before ends. */
export async function confirmPasswordReset(
  deps: AccountLinkDeps,
  throttle: AccountLinkThrottle,
  input: { token: string; password: string },
  ip: string,
): Promise<void> {
  await setPasswordByLink(deps, throttle, 'password_reset', input, ip, async (tx, _link, account, at) => {
    await recordAudit(tx, { kind: 'user', userId: account.id, email: account.email }, at, {
      workspaceId: null,
      action: 'user.password_reset',
      targetType: 'user',
      targetId: account.id,
      details: { email: account.email },
    });
  });
}

/**
 * Uses the link and sets the password of its account, with `record` (the audit) in the same transaction;
 * any refusal changes nothing. Returns the account as it is now.
 */
async function setPasswordByLink(
  deps: Deps<'users' | 'workspaces' | 'accountTokens' | 'audit'> & { passwords: PasswordHasher },
  throttle: AccountLinkThrottle,
  purpose: LinkPurpose,
  input: { token: string; password: string },
  ip: string,
  record: (
    tx: Pick<Repositories, 'audit'>,
    link: AccountTokenRecord,
    account: UserRecord,
    at: string,
  ) => Promise<void>,
): Promise<UserRecord> {
  takeAttempt(throttle.linkPerIp, ip, 'link_ip');
  const password = parseInput(passwordSchema, input.password, 'password');
  // Checked before the password is hashed: scrypt's work is spent on links that can be used.
  await usableLink(deps.store, deps.clock, purpose, input.token);
  const passwordHash = await deps.passwords.hash(password);
  const at = isoAt(deps.clock);
  return deps.store.transaction(async (tx) => {
    // Again inside: the link may have been used or replaced while the password was hashed.
    const link = await usableLink(tx, deps.clock, purpose, input.token);
    const account = await tx.users.get(link.userId);
    // An invite is for an account without a password: one chosen since (a reset, the operator) stays.
    if (!account || (purpose === 'invite' && account.passwordHash !== null)) {
      throw new AppError('link_invalid', { reason: 'used' });
    }
    if (!(await tx.accountTokens.use(link.id, at))) throw new AppError('link_invalid', { reason: 'used' });
    await tx.users.setPasswordHash(account.id, passwordHash);
    // The account has a password now: the other links sent to set one are of no use any more.
    await tx.accountTokens.expireUnused(account.id, 'invite', at, 'expired');
    await tx.accountTokens.expireUnused(account.id, 'password_reset', at, 'expired');
    await record(tx, link, account, at);
    return { ...account, passwordHash };
  });
}

/** The link of `token` for `purpose`, or 400 link_invalid saying why it cannot be used. */
async function usableLink(
  store: Pick<Repositories, 'accountTokens' | 'workspaces'>,
  clock: Clock,
  purpose: LinkPurpose,
  token: string,
): Promise<AccountTokenRecord> {
  const link = await store.accountTokens.findByHash(hashKey(token));
  if (link?.purpose !== purpose) throw new AppError('link_invalid', { reason: 'unknown' });
  if (link.usedAt !== null) throw new AppError('link_invalid', { reason: 'used' });
  if (link.replacedAt !== null) throw new AppError('link_invalid', { reason: 'replaced' });
  // An invite into a workspace that has since removed the account was taken back, not merely left to expire.
  if (
    link.purpose === 'invite' &&
    link.workspaceId !== null &&
    (await store.workspaces.getMember(link.workspaceId, link.userId)) === undefined
  ) {
    throw new AppError('link_invalid', { reason: 'withdrawn' });
  }
  if (Date.parse(link.expiresAt) <= clock.now()) {
    throw new AppError('link_invalid', { reason: 'expired' });
  }
  return link;
}
