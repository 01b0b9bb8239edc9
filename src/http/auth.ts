import type { FastifyRequest } from 'fastify';
import { BRAND_KEY_PREFIX } from '../core/brand-key.js';
import { AppError } from '../core/errors.js';
import type { Permission } from '../core/roles.js';
import { authorize } from '../services/access.js';
import type { Actor } from '../services/audit.js';
import type { UserPrincipal } from '../services/tokens.js';
import type { MembershipRecord } from '../store/store.js';
import type { AppContext } from './context.js';

declare module 'fastify' {
  interface FastifyRequest {
    principal: UserPrincipal | null;
    membership: MembershipRecord | null;
  }
  interface FastifyContextConfig {
    /** What the caller's role must allow on the workspace in the route's `:id` (checked in one hook). */
    permission?: Permission;
  }
}

/** `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1), the token one word. */
export function bearerToken(header: string): string | undefined {
  return /^Bearer +(\S+) *$/i.exec(header)?.[1];
}

/** onRequest hook of every management route: a valid user token, never a brand read key. */
export function authenticateUser(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const header = request.headers.authorization;
    if (header === undefined || header === '')
      throw new AppError('missing_token', 'The Authorization header is missing.');
    const token = bearerToken(header);
    if (token === undefined)
      throw new AppError('invalid_token', 'The Authorization header must be "Bearer <token>".');
    if (token.startsWith(BRAND_KEY_PREFIX)) {
      throw new AppError(
        'brand_key_not_allowed',
        'Brand read keys can only call POST /functions/v1/brand-agent.',
      );
    }
    request.principal = await ctx.tokens.verify(token);
  };
}

export function principalOf(request: FastifyRequest): UserPrincipal {
  if (!request.principal) throw new Error(`${request.url} reached its handler without authentication`);
  return request.principal;
}

export function actorOf(request: FastifyRequest): Actor {
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
    request.membership = await authorize(ctx.deps, principalOf(request).user, request.params.id, permission);
  };
}

export function membershipOf(request: FastifyRequest): MembershipRecord {
  if (!request.membership) throw new Error(`${request.url} reached its handler without authorization`);
  return request.membership;
}
