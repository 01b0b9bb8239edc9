import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Permission } from '../core/roles.js';
import type { Actor } from '../services/audit/audit.js';
import { type Credentials, type Principal, requireKeyPermission } from '../services/auth/credentials.js';
import type { UserPrincipal } from '../services/auth/tokens.js';
import type { MembershipRecord } from '../store/store.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** Who made the request, set by the authentication hook of its surface (src/services/auth/credentials.ts). */
    principal: Principal | null;
    /** The principal came from the console's cookie: writes must then carry the CSRF token. */
    viaSessionCookie: boolean;
    membership: MembershipRecord | null;
  }
  interface FastifyContextConfig {
    /** What the caller's role must allow on the workspace in the route's `:id` (checked in one hook). */
    permission?: Permission;
  }
}

/** The console's session: an HttpOnly cookie holding a sign-in token, and the CSRF secret beside it. */
export const SESSION_COOKIE = 'bc_session';
export const CSRF_COOKIE = 'bc_csrf';
/** Never readable by page scripts, never sent with another site's request, only over https when served so. */
export const COOKIE_OPTIONS = { path: '/', httpOnly: true, sameSite: 'strict', secure: 'auto' } as const;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * onRequest hook of every management route: the caller is a user (bearer token or session cookie), or a key
 * of a kind the management API takes on a route its permissions cover (src/services/auth/credentials.ts).
 */
export function authenticate(credentials: Credentials) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { authorization } = request.headers;
    const sessionCookie = request.cookies[SESSION_COOKIE];
    const principal = await credentials.resolve({ authorization, sessionCookie }, 'management');
    request.principal = principal;
    announceKeyExpiry(reply, principal);
    request.viaSessionCookie = authorization === undefined || authorization === '';
    requireKeyPermission(principal, request.routeOptions.config.permission);
  };
}

/**
 * onRequest hook after `authenticate`: a write authorized by the session cookie must prove it comes from
 * the console (the CSRF token), since a browser sends cookies with any site's request. Bearer tokens are
 * never sent by a browser on its own, so they need no such proof.
 */
export function requireCsrfForCookieWrites(app: FastifyInstance) {
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.viaSessionCookie && !SAFE_METHODS.has(request.method)) {
      app.csrfProtection(request, reply, done);
      return;
    }
    done();
  };
}

/**
 * Every answer to a key-authenticated request, refusals after authentication included, says when the key
 * expires (docs/keys.md "Brand read keys"), so a client can rotate it before it stops working.
 */
export function announceKeyExpiry(reply: FastifyReply, principal: Principal): void {
  if (principal.kind === 'key' && principal.expiresHeader !== null)
    reply.header('brand-key-expires', principal.expiresHeader);
}

export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error(`${request.url} reached its handler without authentication`);
  return request.principal;
}

/** The user of a route that takes no key (one of no permission: the caller's own workspaces and tokens). */
export function userPrincipalOf(request: FastifyRequest): UserPrincipal {
  const principal = principalOf(request);
  if (principal.kind === 'key') throw new Error(`${request.url} reached its handler with a key`);
  return principal;
}

export function actorOf(request: FastifyRequest): Actor {
  const principal = principalOf(request);
  // Audit events name every key that acts as an API key: only workspace API keys reach routes that write.
  if (principal.kind === 'key') return { kind: 'api_key', keyId: principal.id };
  return { kind: 'user', userId: principal.user.id, email: principal.user.email };
}

/**
 * preValidation hook of every route under /api/v1/workspaces/:id: the caller must have the route's
 * `config.permission` in that workspace (src/services/auth/credentials.ts `authorize`).
 */
export function authorizeWorkspace(credentials: Credentials) {
  return async (request: FastifyRequest<{ Params: { id: string } }>): Promise<void> => {
    const { permission } = request.routeOptions.config;
    if (permission === undefined)
      throw new Error(`${request.routeOptions.url ?? request.url} declares no permission`);
    request.membership = await credentials.authorize(principalOf(request), request.params.id, permission);
  };
}

export function membershipOf(request: FastifyRequest): MembershipRecord {
  if (!request.membership) throw new Error(`${request.url} reached its handler without authorization`);
  return request.membership;
}
