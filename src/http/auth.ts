import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { AppError } from '../core/errors.js';
import { API_KEY_PERMISSIONS, type Permission } from '../core/roles.js';
import { BRAND_KEY, WORKSPACE_API_KEY } from '../core/secret-keys.js';
import { authorize, authorizeApiKey } from '../services/access.js';
import type { Actor } from '../services/audit.js';
import { verifyApiKey, type VerifiedApiKey } from '../services/keys.js';
import type { UserPrincipal } from '../services/tokens.js';
import type { MembershipRecord } from '../store/store.js';
import type { AppContext } from './context.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: UserPrincipal | null;
    /** The principal came from the console's cookie: writes must then carry the CSRF token. */
    viaSessionCookie: boolean;
    /** Set instead of `principal` when a workspace API key made the request. */
    apiKey: VerifiedApiKey | null;
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

/** `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1), the token one word. */
export function bearerToken(header: string): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/**
 * onRequest hook of every management route: a valid user token, or a workspace API key on the routes
 * whose permission API keys hold (the campaign routes); never a brand read key.
 */
export function authenticate(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      const session = request.cookies[SESSION_COOKIE];
      if (session === undefined || session === '')
        throw new AppError('missing_token', 'The Authorization header is missing.');
      request.principal = await ctx.tokens.verify(session);
      request.viaSessionCookie = true;
      return;
    }
    const token = bearerToken(header);
    if (token === undefined)
      throw new AppError('invalid_token', 'The Authorization header must be "Bearer <token>".');
    if (token.startsWith(BRAND_KEY.prefix)) {
      throw new AppError(
        'brand_key_not_allowed',
        'Brand read keys can only call POST /functions/v1/brand-agent.',
      );
    }
    if (token.startsWith(WORKSPACE_API_KEY.prefix)) {
      request.apiKey = await verifyApiKey(ctx.deps, token, ctx.usage);
      const { permission } = request.routeOptions.config;
      if (permission === undefined || !API_KEY_PERMISSIONS.includes(permission)) {
        throw new AppError(
          'api_key_not_allowed',
          'Workspace API keys can only call the campaign routes of their workspace.',
        );
      }
      return;
    }
    request.principal = await ctx.tokens.verify(token);
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

export function principalOf(request: FastifyRequest): UserPrincipal {
  if (!request.principal) throw new Error(`${request.url} reached its handler without authentication`);
  return request.principal;
}

export function actorOf(request: FastifyRequest): Actor {
  if (request.apiKey) return { kind: 'api_key', keyId: request.apiKey.id };
  const { user } = principalOf(request);
  return { kind: 'user', userId: user.id, email: user.email };
}

/**
 * preValidation hook of every route under /api/v1/workspaces/:id — the one place roles are enforced: the route's
 * `config.permission` must be allowed by the caller's role in that workspace.
 */
export function authorizeWorkspace(ctx: AppContext) {
  return async (request: FastifyRequest<{ Params: { id: string } }>): Promise<void> => {
    const { permission } = request.routeOptions.config;
    if (permission === undefined)
      throw new Error(`${request.routeOptions.url ?? request.url} declares no permission`);
    const workspaceId = request.params.id;
    if (request.apiKey) await authorizeApiKey(ctx.deps, request.apiKey, workspaceId);
    else request.membership = await authorize(ctx.deps, principalOf(request).user, workspaceId, permission);
  };
}

export function membershipOf(request: FastifyRequest): MembershipRecord {
  if (!request.membership) throw new Error(`${request.url} reached its handler without authorization`);
  return request.membership;
}
