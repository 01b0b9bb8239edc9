import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../../core/clock.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import {
  grantableScopes,
  isOAuthScope,
  OAUTH_LIFETIMES,
  OAuthError,
  type OAuthScope,
  parseScopeParameter,
} from '../../core/oauth.js';
import { verifiesS256 } from '../../core/pkce.js';
import { hashKey, OAUTH_SECRET_PREFIXES } from '../../core/secret-keys.js';
import type { OAuthGrantRecord, Repositories } from '../../store/store.js';
import { SYSTEM } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type GrantRevocationReason, revokeGrantRecord } from './grants.js';

/** A new secret of one OAuth kind: its prefix and 32 random bytes in base64url (docs/oauth.md "Tokens"). */
export function newOAuthSecret(kind: keyof typeof OAUTH_SECRET_PREFIXES): string {
  return OAUTH_SECRET_PREFIXES[kind] + randomBytes(32).toString('base64url');
}

/** The token endpoint's answer (RFC 6749 §5.1). */
export interface OAuthTokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** What the token endpoint touches. */
type TokenDeps = Deps<'oauth' | 'workspaces' | 'users' | 'audit' | 'webhooks' | 'deliveries'>;

/** The form parameters of a token request (RFC 6749 §4.1.3, §6), as strings. */
export type TokenRequest = Partial<Record<string, string>>;

const ms = (seconds: number) => seconds * 1000;

/**
 * The grant's scopes that its user's role still allows; none when the user has left the workspace, which
 * ends what the grant may do (docs/oauth.md "Grants").
 */
async function liveScopes(
  store: Pick<Repositories, 'workspaces'>,
  grant: OAuthGrantRecord,
): Promise<OAuthScope[]> {
  const member = await store.workspaces.getMember(grant.workspaceId, grant.userId);
  if (!member) return [];
  return grantableScopes(member.role, grant.scopes.filter(isOAuthScope));
}

/** Issues an access token and a refresh token of `grant`, inside the transaction that allowed it. */
async function issueTokens(
  tx: Pick<Repositories, 'oauth'>,
  clock: Clock,
  grantId: string,
  scopes: readonly OAuthScope[],
): Promise<OAuthTokenResponse> {
  const now = clock.now();
  const accessToken = newOAuthSecret('access');
  const refreshToken = newOAuthSecret('refresh');
  const createdAt = new Date(now).toISOString();
  await tx.oauth.saveToken({
    hash: hashKey(accessToken),
    grantId,
    kind: 'access',
    expiresAt: new Date(now + ms(OAUTH_LIFETIMES.access)).toISOString(),
    usedAt: null,
    createdAt,
  });
  await tx.oauth.saveToken({
    hash: hashKey(refreshToken),
    grantId,
    kind: 'refresh',
    expiresAt: new Date(now + ms(OAUTH_LIFETIMES.refresh)).toISOString(),
    usedAt: null,
    createdAt,
  });
  return {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: OAUTH_LIFETIMES.access,
    refresh_token: refreshToken,
    scope: scopes.join(' '),
  };
}

/**
 * The client a token request names must be known here: an unknown one is `invalid_client` (401), which has
 * MCP clients register again (a client whose registration was lost).
 */
async function requireClient(deps: Deps<'oauth'>, clientId: string): Promise<void> {
  if (!(await deps.store.oauth.getClient(clientId)))
    throw new OAuthError('invalid_client', `client_id ${clientId} is not registered here`);
}

function required(request: TokenRequest, name: string): string {
  const value = request[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

/**
 * A code or refresh token used a second time may have been stolen: the grant it came from is revoked, and
 * with it every token issued from it (RFC 9700 §2.1.1, §4.14.2). Committed before the refusal is answered.
 */
async function revokeForReplay(
  deps: TokenDeps,
  grantId: string,
  reason: GrantRevocationReason,
  description: string,
): Promise<never> {
  const grant = await deps.store.oauth.getGrant(grantId);
  if (grant)
    await deps.store.transaction((tx) => revokeGrantRecord(tx, SYSTEM, isoAt(deps.clock), grant, reason));
  throw new OAuthError('invalid_grant', description);
}

/** grant_type=authorization_code (RFC 6749 §4.1.3 with PKCE, RFC 7636 §4.5, and `resource`, RFC 8707). */
async function exchangeCode(deps: TokenDeps, request: TokenRequest): Promise<OAuthTokenResponse> {
  const code = required(request, 'code');
  const clientId = required(request, 'client_id');
  const redirectUri = required(request, 'redirect_uri');
  const verifier = required(request, 'code_verifier');
  await requireClient(deps, clientId);
  const now = deps.clock.now();
  const used = await deps.store.oauth.useCode(hashKey(code), new Date(now).toISOString());
  if (!used) throw new OAuthError('invalid_grant', 'the authorization code is not valid');
  if (used.usedAt !== null)
    return revokeForReplay(
      deps,
      used.grantId,
      'code_replayed',
      'the authorization code was already used: the tokens issued for it are revoked',
    );
  if (Date.parse(used.expiresAt) <= now)
    throw new OAuthError('invalid_grant', 'the authorization code has expired');
  const grant = await deps.store.oauth.getGrant(used.grantId);
  if (!grant || grant.revokedAt !== null)
    throw new OAuthError('invalid_grant', 'the authorization was revoked');
  if (grant.clientId !== clientId)
    throw new OAuthError('invalid_grant', 'the authorization code was issued to another client');
  if (used.redirectUri !== redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri differs from the authorization request’s');
  const resource = request.resource;
  if (resource !== undefined && resource !== used.resource)
    throw new OAuthError('invalid_target', `resource must be ${used.resource}, as authorized`);
  if (!verifiesS256(verifier, used.codeChallenge))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge (PKCE S256)');
  const scopes = await liveScopes(deps.store, grant);
  if (scopes.length === 0)
    throw new OAuthError('invalid_grant', 'the user no longer has access to the workspace');
  return deps.store.transaction((tx) => issueTokens(tx, deps.clock, grant.id, scopes));
}

/** grant_type=refresh_token (RFC 6749 §6): rotated on every use; one used twice revokes its grant. */
async function refresh(deps: TokenDeps, request: TokenRequest): Promise<OAuthTokenResponse> {
  const token = required(request, 'refresh_token');
  const clientId = required(request, 'client_id');
  await requireClient(deps, clientId);
  const now = deps.clock.now();
  const used = await deps.store.oauth.useRefreshToken(hashKey(token), new Date(now).toISOString());
  if (!used) throw new OAuthError('invalid_grant', 'the refresh token is not valid');
  if (used.usedAt !== null)
    return revokeForReplay(
      deps,
      used.grantId,
      'refresh_token_reused',
      'the refresh token was already used: refresh tokens rotate, so the connection is revoked',
    );
  if (Date.parse(used.expiresAt) <= now)
    throw new OAuthError('invalid_grant', 'the refresh token has expired');
  const grant = await deps.store.oauth.getGrant(used.grantId);
  if (!grant || grant.revokedAt !== null)
    throw new OAuthError('invalid_grant', 'the authorization was revoked');
  if (grant.clientId !== clientId)
    throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
  let scopes = await liveScopes(deps.store, grant);
  if (scopes.length === 0)
    throw new OAuthError('invalid_grant', 'the user no longer has access to the workspace');
  if (request.scope !== undefined && request.scope !== '') {
    // A narrower scope may be asked for (RFC 6749 §6), never a wider one.
    const asked = parseScopeParameter(request.scope);
    if (!asked || !asked.every((scope) => grant.scopes.includes(scope)))
      throw new OAuthError('invalid_scope', 'scope may only name scopes of the original authorization');
    scopes = scopes.filter((scope) => asked.includes(scope));
  }
  return deps.store.transaction((tx) => issueTokens(tx, deps.clock, grant.id, scopes));
}

/** POST /oauth/token: the answer, or the OAuthError to answer with. */
export function requestTokens(deps: TokenDeps, request: TokenRequest): Promise<OAuthTokenResponse> {
  switch (request.grant_type) {
    case 'authorization_code':
      return exchangeCode(deps, request);
    case 'refresh_token':
      return refresh(deps, request);
    case undefined:
    case '':
      throw new OAuthError('invalid_request', 'grant_type is required');
    default:
      throw new OAuthError(
        'unsupported_grant_type',
        'grant_type must be authorization_code or refresh_token',
      );
  }
}

/**
 * POST /oauth/revoke (RFC 7009): a refresh or access token ends its grant, and every token issued from it.
 * Unknown, expired and already revoked tokens are not errors (§2.2): the caller learns nothing either way.
 */
export async function revokeToken(deps: TokenDeps, request: TokenRequest): Promise<void> {
  const token = request.token;
  if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');
  const found = await deps.store.oauth.findToken(hashKey(token));
  if (!found) return;
  const { grant } = found;
  // A client revokes only what was issued to it; without a client_id, the token's possession is the proof.
  if (request.client_id !== undefined && request.client_id !== grant.clientId) return;
  if (grant.revokedAt !== null) return;
  await deps.store.transaction((tx) => revokeGrantRecord(tx, SYSTEM, isoAt(deps.clock), grant, 'revoked'));
}

/** Who an access token acts for, once verified. */
export interface VerifiedOAuthToken {
  grantId: string;
  userId: string;
  workspaceId: string;
  /** The grant's scopes that its user's role allows now. */
  scopes: OAuthScope[];
  clientId: string;
  /** When the access token expires (epoch ms). */
  expiresAt: number;
}

/** A grant's `last_used_at` is written at most this often per node. */
const TOUCH_INTERVAL_MS = 60_000;
const MAX_TOUCHED_GRANTS = 10_000;

/**
 * Verifies OAuth access tokens for `/mcp` (docs/oauth.md "Tokens"). Every call looks the token and its grant
 * up, so a revoked grant is refused on the next request on every node; keeps only when it last wrote each
 * grant's `last_used_at`.
 */
export class OAuthTokens {
  private readonly touched = new LRUCache<string, number>({ max: MAX_TOUCHED_GRANTS });

  constructor(
    private readonly deps: Deps<'oauth' | 'workspaces'>,
    private readonly onTouchError: (error: unknown) => void,
  ) {}

  /** The grant behind an access token; throws AppError `invalid_token` for one unknown, expired or revoked. */
  async verify(token: string): Promise<VerifiedOAuthToken> {
    const { store, clock } = this.deps;
    const found = token.startsWith(OAUTH_SECRET_PREFIXES.access)
      ? await store.oauth.findToken(hashKey(token))
      : undefined;
    if (!found || found.token.kind !== 'access') throw new AppError('invalid_token', { reason: 'unknown' });
    const { token: record, grant } = found;
    const now = clock.now();
    const expiresAt = Date.parse(record.expiresAt);
    if (expiresAt <= now) throw new AppError('invalid_token', { reason: 'oauth_expired' }, REFRESH_ADVICE);
    if (grant.revokedAt !== null)
      throw new AppError('invalid_token', { reason: 'oauth_revoked' }, RECONNECT_ADVICE);
    const scopes = await liveScopes(store, grant);
    if (scopes.length === 0)
      throw new AppError('invalid_token', { reason: 'oauth_revoked' }, RECONNECT_ADVICE);
    await this.touch(grant.id, now);
    return {
      grantId: grant.id,
      userId: grant.userId,
      workspaceId: grant.workspaceId,
      scopes,
      clientId: grant.clientId,
      expiresAt,
    };
  }

  private async touch(grantId: string, now: number): Promise<void> {
    const last = this.touched.get(grantId);
    if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return;
    this.touched.set(grantId, now);
    try {
      await this.deps.store.oauth.touchGrant(grantId, new Date(now).toISOString());
    } catch (error) {
      // A missed stamp is not worth refusing the request: the next one writes it.
      this.touched.delete(grantId);
      this.onTouchError(error);
    }
  }
}

const REFRESH_ADVICE = { advice: 'Get a new access token with the refresh token (POST /oauth/token).' };
const RECONNECT_ADVICE = { advice: 'Connect the app again: it will ask you to sign in and allow it.' };
