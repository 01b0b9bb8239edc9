import { can, type Permission, type Role } from './roles.js';

/**
 * The rules of the OAuth 2.1 authorization server of `/mcp` (docs/oauth.md "OAuth for MCP clients"): scopes and
 * what each lets a client do, lifetimes, redirect URIs, and the protocol's errors. Pure and browser-safe (the
 * console shows the scopes); PKCE, which hashes, is src/core/pkce.ts; the use cases are in src/services/oauth.
 */

export const OAUTH_SCOPES = ['brand:read', 'campaigns:read', 'campaigns:write'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What each scope lets a client do in the grant's workspace: the permissions of src/core/roles.ts it stands for. */
export const SCOPE_PERMISSIONS: Record<OAuthScope, readonly Permission[]> = {
  'brand:read': ['brand.read'],
  'campaigns:read': ['campaigns.read'],
  'campaigns:write': ['campaigns.write'],
};

/** Lifetimes in seconds: access tokens 1 h, refresh tokens 30 days (rotated on every use), codes 60 s. */
export const OAUTH_LIFETIMES = { access: 3600, refresh: 30 * 24 * 3600, code: 60 } as const;

/** The longest value of any authorization request parameter this server reads (a URL, a state, a scope list). */
export const MAX_PARAMETER_LENGTH = 2048;

/** The path of the protected resource below PUBLIC_URL: the audience of every access token (RFC 8707). */
export const MCP_PATH = '/mcp';

export function mcpResource(issuer: string): string {
  return `${issuer}${MCP_PATH}`;
}

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/**
 * A `scope` parameter (space-separated, RFC 6749 §3.3) as scopes: every scope when it is absent or empty, and
 * undefined when it names one this server does not know.
 */
export function parseScopeParameter(scope: string | undefined): OAuthScope[] | undefined {
  const names = (scope ?? '').split(' ').filter((name) => name !== '');
  if (names.length === 0) return [...OAUTH_SCOPES];
  if (!names.every(isOAuthScope)) return undefined;
  return OAUTH_SCOPES.filter((known) => names.includes(known));
}

/** Whether `role` holds every permission `scope` stands for. */
export function roleAllowsScope(role: Role, scope: OAuthScope): boolean {
  return SCOPE_PERMISSIONS[scope].every((permission) => can(role, permission));
}

/** The scopes of `scopes` that `role` may grant: a grant never exceeds its user's role. */
export function grantableScopes(role: Role, scopes: readonly OAuthScope[]): OAuthScope[] {
  return scopes.filter((scope) => roleAllowsScope(role, scope));
}

/** Names and addresses that never leave the machine: the only hosts an `http:` redirect URI may name. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/**
 * Why a redirect URI is refused, or undefined when it may be registered (docs/oauth.md "Clients"): an absolute
 * https URL, or http on a loopback host (a native app's local listener, RFC 8252 §7.3), without a fragment
 * or user info.
 */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_PARAMETER_LENGTH) return `is longer than ${String(MAX_PARAMETER_LENGTH)} characters`;
  if (!URL.canParse(uri)) return 'is not an absolute URL';
  const url = new URL(uri);
  if (url.hash !== '' || uri.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not contain a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return isLoopbackHost(url.hostname)
      ? undefined
      : 'may use http only on a loopback host (127.0.0.1, [::1], localhost)';
  return 'must be https, or http on a loopback host';
}

/** Redirect URIs match exactly, character for character (OAuth 2.1 §2.3.1): no prefix, no port leeway. */
export function isRegisteredRedirect(registered: readonly string[], uri: string): boolean {
  return registered.includes(uri);
}

/**
 * Whether a `client_id` is a Client ID Metadata Document's URL rather than an id this server issued: an https
 * URL with a path (docs/oauth.md "Clients"). With `allowHttp` (WEBHOOK_ALLOW_PRIVATE_URLS, development and
 * tests), an http one too.
 */
export function isMetadataDocumentId(clientId: string, allowHttp: boolean): boolean {
  if (!URL.canParse(clientId)) return false;
  const url = new URL(clientId);
  const schemes = allowHttp ? ['https:', 'http:'] : ['https:'];
  return schemes.includes(url.protocol) && url.pathname !== '/' && url.hash === '';
}

/** The host a consent screen shows for a redirect URI, for the user to recognise where the browser goes. */
export function redirectHost(uri: string): string {
  return URL.canParse(uri) ? new URL(uri).host : uri;
}

/** The error codes of RFC 6749 §4.1.2.1 and §5.2, RFC 7591 §3.2.2 and RFC 8707 §2 this server answers with. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

/**
 * A refusal in the protocol's own words: the token, registration and revocation endpoints answer it as JSON
 * `{ error, error_description }` (RFC 6749 §5.2), the authorization endpoint as a redirect to the client.
 * Not an AppError: these endpoints are read by OAuth clients, which do not read problem+json.
 */
export class OAuthError extends Error {
  override readonly name = 'OAuthError';

  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }

  /** 401 for `invalid_client` (RFC 6749 §5.2), 400 otherwise. */
  get status(): 400 | 401 {
    return this.error === 'invalid_client' ? 401 : 400;
  }

  toJSON(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}
