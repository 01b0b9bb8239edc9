import { createHash, randomBytes } from 'node:crypto';
import type { errors as joseErrors, JWTPayload, JWTVerifyGetKey, JWTVerifyOptions } from 'jose';
import type { AccessToken, CreatedAccessToken } from '../../contract/access-tokens.js';
import type { IssuedSession } from '../../contract/session.js';
import { newId } from '../../core/base62.js';
import { isoAt } from '../../core/clock.js';
import { AppError, type DetailValues } from '../../core/errors.js';
import { looksLikeJwt } from '../../core/secret-keys.js';
import { MAX_TOKEN_DAYS, nameSchema, parseInput, tokenDaysSchema } from '../../core/inputs.js';
import { brandKeyStatus, lifecycleTimes } from '../../core/key-lifecycle.js';
import type { AuthConfig } from '../../config.js';
import type { AccessTokenRecord, Repositories, RepositoryName, UserRecord } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import type { UsageRecorder } from './usage.js';

export const LOCAL_ISSUER = 'brand-context';
const LOCAL_AUDIENCE = 'brand-context';
const DAY_S = 24 * 60 * 60;
const MIN_SECRET_LENGTH = 32;
/** Sign-in sessions carry a `jti` of this prefix (personal access tokens carry their record's id). */
const SESSION_ID_PREFIX = 'ses';
/** Sign-in sessions carry a fingerprint of the account's password hash as they were issued. */
const PASSWORD_CLAIM = 'password_fingerprint';

/**
 * What a session knows of the password it was signed in with: a new password (a fresh salt, even for the same
 * password) changes it. Reveals nothing of the password: a truncated SHA-256 of its scrypt hash.
 */
export function passwordFingerprint(user: UserRecord): string {
  return createHash('sha256')
    .update(user.passwordHash ?? '')
    .digest('base64url')
    .slice(0, 16);
}

/**
 * jose, loaded when a user token is first signed or verified: a brand read key never needs it, so the service
 * starts (and answers its first read) without it.
 */
const loadJose = () => import('jose');

type RegisteredClaim = 'iss' | 'sub' | 'aud' | 'iat' | 'exp' | 'jti';
/** A payload whose `required` claims jose has checked are present. */
type VerifiedPayload<Required extends RegisteredClaim> = JWTPayload & {
  [Claim in Required]-?: NonNullable<JWTPayload[Claim]>;
};

/** Every token this service issues carries all of these (docs/management-api.md). */
const LOCAL_CLAIMS = ['iss', 'aud', 'sub', 'iat', 'exp', 'jti'] as const;
/** The provider's token must say when it was issued and when it expires (docs/management-api.md "Tokens from an identity provider"). */
const PROVIDER_CLAIMS = ['iat', 'exp'] as const;

/**
 * A caller authenticated by a user token (one of the principals of src/services/auth/credentials.ts): by a sign-in
 * session (whose id signing out revokes), a personal access token, or an identity provider's token.
 */
export type UserPrincipal = {
  user: UserRecord;
  /** When the token stops being accepted (epoch ms). */
  expiresAt: number;
} & (
  | { kind: 'session'; sessionId: string }
  | { kind: 'personal_token'; tokenId: string }
  | { kind: 'provider_token' }
);

/** Why jose refused a token's claims, for the problem's detail: which claim, and what was wrong with it. */
function claimProblem(
  error: joseErrors.JWTClaimValidationFailed | joseErrors.JWTExpired,
  { maxTokenAge }: JWTVerifyOptions,
  JWTExpired: typeof joseErrors.JWTExpired,
): DetailValues<'invalid_token'> {
  if (error.reason === 'missing') return { reason: 'missing_claim', claim: error.claim };
  if (error instanceof JWTExpired && maxTokenAge !== undefined) {
    return { reason: 'too_old', maxAge: maxTokenAge };
  }
  return { reason: 'claim_refused', claim: error.claim, why: error.message };
}

/**
 * What user tokens are signed and verified with, kept between calls: this service's HS256 secret
 * (BRAND_CONTEXT_JWT_SECRET, or else one made once and kept in the store's settings), read once; and, when an
 * identity provider is configured, its key set, made on first use, which caches the keys it fetches.
 */
export class TokenKeys {
  private secret: Uint8Array | undefined;
  /** The provider's JWKS address, checked as the service starts; its key set is made on first use. */
  private readonly jwksUrl: URL | undefined;
  private remoteKeys: Promise<JWTVerifyGetKey> | undefined;

  constructor(
    private readonly store: Pick<Repositories, 'settings'>,
    readonly config: AuthConfig,
  ) {
    if (config.jwtSecret !== undefined && config.jwtSecret.length < MIN_SECRET_LENGTH) {
      throw new Error(`BRAND_CONTEXT_JWT_SECRET must be at least ${MIN_SECRET_LENGTH} characters`);
    }
    const provider = config.identityProvider;
    this.jwksUrl = provider && new URL(provider.jwksUrl);
  }

  async signingKey(): Promise<Uint8Array> {
    if (!this.secret) {
      const secret =
        this.config.jwtSecret ??
        (await this.store.settings.getOrCreate('jwt_secret', randomBytes(32).toString('base64url')));
      this.secret = new TextEncoder().encode(secret);
    }
    return this.secret;
  }

  /** The identity provider's key set, one (and its cache of fetched keys) for every verification; none without a provider. */
  providerKeys(): Promise<JWTVerifyGetKey> | undefined {
    const { jwksUrl } = this;
    if (jwksUrl === undefined) return undefined;
    this.remoteKeys ??= loadJose().then(({ createRemoteJWKSet }) => createRemoteJWKSet(jwksUrl));
    return this.remoteKeys;
  }
}

/** Where uses of personal access tokens are recorded, for `last_used_at`; without it they are not. */
interface UsageDeps {
  usage?: UsageRecorder | undefined;
}

/**
 * What the user-token use cases take: their repositories and the clock (verification is judged against it),
 * the keys tokens are signed and verified with, and where uses are recorded.
 */
export type TokenDeps<Name extends RepositoryName = never> = Deps<Name> &
  UsageDeps & { tokenKeys: TokenKeys };

/** What the credentials module asks of user tokens (src/services/auth/credentials.ts): `verifyUserToken`. */
export interface UserTokenVerifier {
  verify(token: string): Promise<UserPrincipal>;
}

async function sign(
  deps: Pick<TokenDeps, 'clock' | 'tokenKeys'>,
  user: UserRecord,
  expiresAt: number,
  jti?: string,
  claims: JWTPayload = {},
): Promise<string> {
  const { SignJWT } = await loadJose();
  const jwt = new SignJWT({ ...claims, email: user.email })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer(LOCAL_ISSUER)
    .setAudience(LOCAL_AUDIENCE)
    .setSubject(user.id)
    .setIssuedAt(Math.floor(deps.clock.now() / 1000))
    .setExpirationTime(Math.floor(expiresAt / 1000));
  if (jti !== undefined) jwt.setJti(jti);
  return jwt.sign(await deps.tokenKeys.signingKey());
}

/** A sign-in session: a short-lived user token (BRAND_CONTEXT_SESSION_TTL) that a new password ends. */
export async function issueSession(
  deps: Pick<TokenDeps, 'clock' | 'tokenKeys'>,
  user: UserRecord,
): Promise<IssuedSession> {
  const ttl = deps.tokenKeys.config.sessionTtlSeconds;
  const token = await sign(deps, user, deps.clock.now() + ttl * 1000, newId(SESSION_ID_PREFIX), {
    [PASSWORD_CLAIM]: passwordFingerprint(user),
  });
  return { access_token: token, token_type: 'bearer', expires_in: ttl };
}

/** Signing out: the session's token is refused from now on, on every node. */
export async function signOut(deps: Deps<'tokens'>, principal: UserPrincipal): Promise<void> {
  if (principal.kind !== 'session') return;
  const now = isoAt(deps.clock);
  const expiresAt = new Date(principal.expiresAt).toISOString();
  await deps.store.tokens.signOutSession(principal.sessionId, expiresAt, now);
}

/**
 * A personal access token for AI clients and scripts: shown once, at most 90 days, revocable (a JWT whose
 * `jti` is recorded so it can be listed and revoked).
 */
export async function createPersonalToken(
  deps: TokenDeps<'tokens' | 'audit'>,
  user: UserRecord,
  input: { name: string; expiresInDays: number },
): Promise<CreatedAccessToken> {
  const name = parseInput(nameSchema, input.name, 'name');
  const days = parseInput(tokenDaysSchema, input.expiresInDays, 'expires_in_days');
  const now = deps.clock.now();
  const record: AccessTokenRecord = {
    id: newId('pat'),
    userId: user.id,
    name,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(now + days * DAY_S * 1000).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  const token = await sign(deps, user, now + days * DAY_S * 1000, record.id);
  const actor: Actor = { kind: 'user', userId: user.id, email: user.email };
  await deps.store.transaction(async (tx) => {
    await tx.tokens.create(record);
    await recordAudit(tx, actor, record.createdAt, {
      workspaceId: null,
      action: 'access_token.created',
      targetType: 'access_token',
      targetId: record.id,
      details: { name, expires_at: record.expiresAt },
    });
  });
  return { ...toView(deps, record), token };
}

export async function listPersonalTokens(
  deps: Deps<'tokens'> & UsageDeps,
  user: UserRecord,
): Promise<AccessToken[]> {
  return (await deps.store.tokens.list(user.id)).map((record) => toView(deps, record));
}

export async function revokePersonalToken(
  deps: Deps<'tokens' | 'audit'> & UsageDeps,
  user: UserRecord,
  id: string,
): Promise<AccessToken> {
  const now = isoAt(deps.clock);
  const revocation = await deps.store.transaction(async (tx) => {
    const revoked = await tx.tokens.revoke(user.id, id, now);
    if (revoked?.revokedNow) {
      await recordAudit(tx, { kind: 'user', userId: user.id, email: user.email }, now, {
        workspaceId: null,
        action: 'access_token.revoked',
        targetType: 'access_token',
        targetId: id,
        details: { name: revoked.record.name },
      });
    }
    return revoked;
  });
  if (!revocation) throw new AppError('token_not_found', { tokenId: id });
  return toView(deps, revocation.record);
}

function toView(deps: Pick<Deps, 'clock'> & UsageDeps, record: AccessTokenRecord): AccessToken {
  return {
    id: record.id,
    name: record.name,
    status: brandKeyStatus(lifecycleTimes(record), deps.clock.now()),
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    last_used_at: deps.usage?.pendingUse('accessToken', record.id) ?? record.lastUsedAt,
  };
}

/**
 * Verifies a user token (a bearer token or the session cookie): a sign-in session, a personal access token,
 * or, when configured, an identity provider's token. Throws a 401 problem when it is not valid now.
 */
export async function verifyUserToken(
  deps: TokenDeps<'users' | 'tokens'>,
  token: string,
): Promise<UserPrincipal> {
  if (!looksLikeJwt(token)) throw new AppError('invalid_token', { reason: 'format' });
  const { decodeJwt } = await loadJose();
  let issuer: string | undefined;
  try {
    issuer = decodeJwt(token).iss;
  } catch {
    throw new AppError('invalid_token', { reason: 'format' });
  }
  return issuer === LOCAL_ISSUER ? verifyLocal(deps, token) : verifyRemote(deps, token, issuer);
}

async function verifyLocal(deps: TokenDeps<'users' | 'tokens'>, token: string): Promise<UserPrincipal> {
  const { tokenKeys } = deps;
  const payload = await verifyJwt(deps, token, tokenKeys.signingKey.bind(tokenKeys), LOCAL_CLAIMS, {
    issuer: LOCAL_ISSUER,
    audience: LOCAL_AUDIENCE,
    algorithms: ['HS256'],
  });
  // A signature alone does not prove the service made the token (the secret may have leaked): one that
  // lives longer than any this service issues is refused.
  const isSession = payload.jti.startsWith(`${SESSION_ID_PREFIX}_`);
  const maxLifetime = isSession ? tokenKeys.config.sessionTtlSeconds : MAX_TOKEN_DAYS * DAY_S;
  if (payload.exp - payload.iat > maxLifetime) {
    throw new AppError('invalid_token', {
      reason: 'lifetime',
      lifetime: payload.exp - payload.iat,
      maxLifetime,
    });
  }
  const user = await deps.store.users.get(payload.sub);
  if (!user) throw new AppError('invalid_token', { reason: 'no_account' });
  const expiresAt = payload.exp * 1000;
  if (isSession) {
    // A password change ends the sessions issued before it. (Their `iat` would not do: it counts whole
    // seconds, too coarse to tell a session issued just before a reset from one issued just after.)
    // A session is renewed by signing in, not by the personal access token the resolution offers.
    if (payload[PASSWORD_CLAIM] !== passwordFingerprint(user)) {
      throw new AppError(
        'token_revoked',
        { reason: 'password_changed' },
        { advice: 'Sign in again with your new password.' },
      );
    }
    if (await deps.store.tokens.isSessionSignedOut(payload.jti)) {
      throw new AppError('token_revoked', { reason: 'signed_out' }, { advice: 'Sign in again.' });
    }
    return { kind: 'session', user, sessionId: payload.jti, expiresAt };
  }
  const record = await deps.store.tokens.get(payload.jti);
  if (!record || record.userId !== user.id) throw new AppError('invalid_token', { reason: 'unknown' });
  if (record.revokedAt !== null) throw new AppError('token_revoked', { reason: 'revoked' });
  deps.usage?.used('accessToken', record.id, deps.clock.now());
  return { kind: 'personal_token', user, tokenId: record.id, expiresAt };
}

async function verifyRemote(
  deps: TokenDeps<'users'>,
  token: string,
  issuer: string | undefined,
): Promise<UserPrincipal> {
  const provider = deps.tokenKeys.config.identityProvider;
  const keys = deps.tokenKeys.providerKeys();
  if (!provider || !keys) {
    throw new AppError(
      'invalid_token',
      issuer === undefined ? { reason: 'missing_claim', claim: 'iss' } : { reason: 'foreign_issuer' },
    );
  }
  const payload = await verifyJwt(deps, token, await keys, PROVIDER_CLAIMS, {
    issuer: provider.issuer,
    audience: provider.audience,
    maxTokenAge: provider.maxTokenAgeSeconds,
  });
  const email = payload[provider.emailClaim];
  const user =
    typeof email === 'string' ? await deps.store.users.findByEmail(email.trim().toLowerCase()) : undefined;
  if (!user) {
    throw new AppError('invalid_token', {
      reason: 'no_provider_account',
      emailClaim: provider.emailClaim,
    });
  }
  return { kind: 'provider_token', user, expiresAt: payload.exp * 1000 };
}

/** jose's verification against the injected clock, its refusals as 401 problems saying why. */
async function verifyJwt<Required extends RegisteredClaim>(
  deps: Pick<Deps, 'clock'>,
  token: string,
  key: JWTVerifyGetKey,
  required: readonly Required[],
  options: JWTVerifyOptions,
): Promise<VerifiedPayload<Required>> {
  const { errors: joseErrors, jwtVerify } = await loadJose();
  try {
    const { payload } = await jwtVerify(token, key, {
      ...options,
      requiredClaims: [...required],
      currentDate: new Date(deps.clock.now()),
    });
    // jose checks that every required claim is present, that `iat` and `exp` are numbers, and `iss` and
    // `aud` against the options, but not the type of the other string claims.
    for (const claim of ['sub', 'jti'] as const) {
      if (claim in payload && typeof payload[claim] !== 'string')
        throw new AppError('invalid_token', { reason: 'claim_not_string', claim });
    }
    return payload as VerifiedPayload<Required>;
  } catch (error) {
    // jose reports an `iat` older than maxTokenAge as JWTExpired too: such a token is refused, not expired.
    if (error instanceof joseErrors.JWTExpired && error.claim === 'exp') throw new AppError('token_expired');
    if (error instanceof joseErrors.JWTExpired || error instanceof joseErrors.JWTClaimValidationFailed)
      throw new AppError('invalid_token', claimProblem(error, options, joseErrors.JWTExpired));
    if (error instanceof joseErrors.JOSEError) throw new AppError('invalid_token', { reason: 'invalid' });
    throw error;
  }
}
