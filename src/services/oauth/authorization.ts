import {
  AUTHORIZATION_PARAMETERS,
  type AuthorizationParameters,
  type OAuthAuthorization,
} from '../../contract/oauth-consent.js';
import { newId } from '../../core/base62.js';
import { AppError } from '../../core/errors.js';
import {
  grantableScopes,
  isOAuthScope,
  isRegisteredRedirect,
  MAX_PARAMETER_LENGTH,
  mcpResource,
  OAUTH_LIFETIMES,
  OAuthError,
  type OAuthScope,
  parseScopeParameter,
  redirectHost,
  roleAllowsScope,
} from '../../core/oauth.js';
import { isS256Challenge } from '../../core/pkce.js';
import { hashKey } from '../../core/secret-keys.js';
import type { OAuthClientRecord, UserRecord } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';
import { type ClientDeps, resolveClient } from './clients.js';
import { newOAuthSecret } from './tokens.js';

/** Where errors may be sent: the client, and its redirect URI, registered and exact. */
export interface AuthorizationTarget {
  client: OAuthClientRecord;
  redirectUri: string;
  state: string | undefined;
}

/** An authorization request that may be shown for consent. */
export interface CheckedAuthorization extends AuthorizationTarget {
  scopes: OAuthScope[];
  codeChallenge: string;
  resource: string;
}

function badRequest(why: string): AppError {
  return new AppError('invalid_authorization_request', { why });
}

/**
 * The client and its redirect URI, checked before anything else: a request failing here is answered 400 and
 * never redirected (RFC 6749 §4.1.2.1), since its redirect URI cannot be trusted. Throws AppError
 * `invalid_authorization_request`.
 */
export async function checkAuthorizationTarget(
  deps: ClientDeps,
  params: AuthorizationParameters,
): Promise<AuthorizationTarget> {
  const { client_id: clientId, redirect_uri: redirectUri } = params;
  if (clientId === undefined || clientId === '') throw badRequest('client_id is missing');
  if (clientId.length > MAX_PARAMETER_LENGTH) throw badRequest('client_id is too long');
  let client: OAuthClientRecord;
  try {
    client = await resolveClient(deps, clientId);
  } catch (error) {
    if (error instanceof OAuthError) throw badRequest(error.description);
    throw error;
  }
  if (redirectUri === undefined || redirectUri === '') throw badRequest('redirect_uri is missing');
  if (!isRegisteredRedirect(client.redirectUris, redirectUri))
    throw badRequest('redirect_uri is not one the app registered (they must match exactly)');
  return { client, redirectUri, state: params.state };
}

/**
 * The rest of the request, once its target is known: response_type=code, PKCE S256, `resource` naming `/mcp`
 * (its default when absent), scopes this server knows. Throws the OAuthError to redirect with.
 */
export function checkAuthorizationRequest(
  target: AuthorizationTarget,
  params: AuthorizationParameters,
  issuer: string,
): CheckedAuthorization {
  for (const name of AUTHORIZATION_PARAMETERS)
    if ((params[name]?.length ?? 0) > MAX_PARAMETER_LENGTH)
      throw new OAuthError(
        'invalid_request',
        `${name} is longer than ${String(MAX_PARAMETER_LENGTH)} characters`,
      );
  if (params.response_type !== 'code')
    throw new OAuthError('unsupported_response_type', 'response_type must be code');
  const challenge = params.code_challenge;
  if (challenge === undefined || challenge === '')
    throw new OAuthError('invalid_request', 'code_challenge is required (PKCE, S256)');
  if (params.code_challenge_method !== 'S256')
    throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
  if (!isS256Challenge(challenge))
    throw new OAuthError(
      'invalid_request',
      'code_challenge must be a base64url SHA-256 digest (43 characters)',
    );
  const expected = mcpResource(issuer);
  const resource = params.resource ?? expected;
  if (resource !== expected) throw new OAuthError('invalid_target', `resource must be ${expected}`);
  const scopes = parseScopeParameter(params.scope);
  if (!scopes) throw new OAuthError('invalid_scope', 'scope names a scope this server does not have');
  return { ...target, scopes, codeChallenge: challenge, resource };
}

/** The whole request, for the consent API: any refusal is its 400 (the authorization endpoint redirected those). */
async function checkAll(
  deps: ClientDeps,
  params: AuthorizationParameters,
  issuer: string,
): Promise<CheckedAuthorization> {
  const target = await checkAuthorizationTarget(deps, params);
  try {
    return checkAuthorizationRequest(target, params, issuer);
  } catch (error) {
    if (error instanceof OAuthError) throw badRequest(error.description);
    throw error;
  }
}

/** The client's redirect URI with `values`, `state` when the request had one, and `iss` (RFC 9207). */
export function clientRedirect(
  target: Pick<AuthorizationTarget, 'redirectUri' | 'state'>,
  issuer: string,
  values: Record<string, string>,
): string {
  const url = new URL(target.redirectUri);
  for (const [name, value] of Object.entries(values)) url.searchParams.set(name, value);
  if (target.state !== undefined) url.searchParams.set('state', target.state);
  url.searchParams.set('iss', issuer);
  return url.toString();
}

/** GET /api/v1/oauth/authorization: the checked request, and the workspaces the user may connect it to. */
export async function describeAuthorization(
  deps: Deps<'oauth' | 'workspaces'> & Pick<ClientDeps, 'webhookSettings'>,
  user: UserRecord,
  params: AuthorizationParameters,
  issuer: string,
): Promise<OAuthAuthorization> {
  const checked = await checkAll(deps, params, issuer);
  const workspaces = await deps.store.workspaces.listOf(user.id);
  return {
    client: {
      id: checked.client.id,
      name: checked.client.name,
      redirect_host: redirectHost(checked.redirectUri),
      source: checked.client.source,
    },
    scopes: checked.scopes,
    workspaces: workspaces.map((workspace) => ({
      id: workspace.id,
      name: workspace.name,
      role: workspace.role,
      scopes: grantableScopes(workspace.role, checked.scopes),
    })),
  };
}

/** The user's answer on the consent page. */
export interface AuthorizationDecision {
  workspaceId: string;
  scopes: readonly string[];
  decision: 'allow' | 'deny';
}

/**
 * POST /api/v1/oauth/authorization: the request checked again, then Deny → `error=access_denied`, Allow → a
 * grant of the chosen scopes (each asked for, each allowed by the user's role in the workspace) and its
 * code, in one transaction. Answers where the browser goes: the client's redirect URI.
 */
export async function decideAuthorization(
  deps: Deps<'oauth' | 'workspaces' | 'audit' | EventRepositories> & Pick<ClientDeps, 'webhookSettings'>,
  actor: Actor & { kind: 'user' },
  params: AuthorizationParameters,
  issuer: string,
  decision: AuthorizationDecision,
): Promise<string> {
  const checked = await checkAll(deps, params, issuer);
  if (decision.decision === 'deny')
    return clientRedirect(checked, issuer, {
      error: 'access_denied',
      error_description: 'The user did not allow the app',
    });
  const membership = await deps.store.workspaces.getMember(decision.workspaceId, actor.userId);
  if (!membership) {
    const exists = await deps.store.workspaces.get(decision.workspaceId);
    throw exists
      ? new AppError('workspace_forbidden', { reason: 'not_member', workspaceId: decision.workspaceId })
      : new AppError('workspace_not_found', { workspaceId: decision.workspaceId });
  }
  const scopes = [...new Set(decision.scopes)];
  if (scopes.length === 0) throw badRequest('scopes must name at least one scope to allow');
  const unasked = scopes.filter((scope) => !isOAuthScope(scope) || !checked.scopes.includes(scope));
  if (unasked.length > 0)
    throw badRequest(`scopes names scopes the app did not ask for (${unasked.join(', ')})`);
  const granted = scopes.filter(isOAuthScope);
  const beyond = granted.find((scope) => !roleAllowsScope(membership.role, scope));
  if (beyond !== undefined)
    throw new AppError('insufficient_role', {
      reason: 'permission',
      role: membership.role,
      permission: `granting ${beyond}`,
    });
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  const code = newOAuthSecret('code');
  const grant = {
    id: newId('og'),
    clientId: checked.client.id,
    userId: actor.userId,
    workspaceId: membership.workspaceId,
    scopes: granted,
    createdAt: at,
    lastUsedAt: null,
    revokedAt: null,
  };
  await deps.store.transaction(async (tx) => {
    await tx.oauth.createGrant(grant);
    await tx.oauth.saveCode({
      hash: hashKey(code),
      grantId: grant.id,
      redirectUri: checked.redirectUri,
      codeChallenge: checked.codeChallenge,
      resource: checked.resource,
      expiresAt: new Date(now + OAUTH_LIFETIMES.code * 1000).toISOString(),
      usedAt: null,
    });
    await recordAudit(tx, actor, at, {
      workspaceId: grant.workspaceId,
      action: 'oauth_grant.created',
      targetType: 'oauth_grant',
      targetId: grant.id,
      details: {
        client_id: grant.clientId,
        client_name: checked.client.name,
        scopes: granted.join(' '),
        redirect_host: redirectHost(checked.redirectUri),
      },
    });
    await publishEvent(tx, at, {
      workspaceId: grant.workspaceId,
      type: 'oauth_grant.created',
      data: {
        grant: {
          id: grant.id,
          client_id: grant.clientId,
          client_name: checked.client.name,
          user_id: actor.userId,
          user_email: actor.email,
          scopes: granted,
          created_at: at,
        },
      },
    });
  });
  return clientRedirect(checked, issuer, { code });
}
