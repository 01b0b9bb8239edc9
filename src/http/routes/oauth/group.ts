import type { FastifyError, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AppError } from '../../../core/errors.js';
import { OAuthError } from '../../../core/oauth.js';
import type { ZodApp } from '../../context.js';
import { handleError } from '../../problem.js';
import { authorizeRoute } from './authorize.js';
import { registerClientRoute } from './register.js';
import { revokeRoute } from './revoke.js';
import { CORS_HEADERS, NO_STORE } from './schemas.js';
import { tokenRoute } from './token.js';

/** A form body (application/x-www-form-urlencoded) as names to values; a name sent twice is refused (RFC 6749 §3.1). */
function parseForm(text: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    if (Object.hasOwn(form, name)) throw new OAuthError('invalid_request', `${name} is sent more than once`);
    form[name] = value;
  }
  return form;
}

/** The protocol's refusals as RFC 6749 §5.2 JSON; everything else as the app's problems. */
function oauthErrors(
  error: FastifyError | AppError | OAuthError,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  if (error instanceof OAuthError) return reply.code(error.status).headers(NO_STORE).send(error.toJSON());
  return handleError(error, request, reply);
}

const PREFLIGHT_HEADERS = {
  ...CORS_HEADERS,
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'content-type, authorization, mcp-protocol-version',
  'access-control-max-age': '86400',
} as const;

/** OPTIONS /oauth/{register,token,revoke}: the CORS preflight of a browser's POST. */
function preflightRoute(oauth: ZodApp, path: string): void {
  oauth.options(path, { schema: { hide: true } }, (_request, reply) =>
    reply.code(204).headers(PREFLIGHT_HEADERS).send(),
  );
}

/**
 * `/oauth`: the authorization server of `/mcp` (docs/oauth.md "OAuth for MCP clients"). Its clients are OAuth
 * libraries: the token and revocation endpoints take form bodies and answer errors as RFC 6749 JSON.
 */
export function oauthRoutes(oauth: ZodApp, _options: unknown, done: HookHandlerDoneFunction): void {
  oauth.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 16 * 1024 },
    (_request, body, parsed) => {
      try {
        parsed(null, parseForm(body as string));
      } catch (error) {
        parsed(error as Error, undefined);
      }
    },
  );
  oauth.setErrorHandler(oauthErrors);
  oauth.addHook('onRequest', (request, reply, next) => {
    if (request.method !== 'GET') reply.headers(CORS_HEADERS);
    next();
  });
  authorizeRoute(oauth);
  registerClientRoute(oauth);
  tokenRoute(oauth);
  revokeRoute(oauth);
  for (const path of ['/register', '/token', '/revoke']) preflightRoute(oauth, path);
  done();
}
