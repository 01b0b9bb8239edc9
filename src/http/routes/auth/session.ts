import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AppError, type ProblemCode } from '../../../core/errors.js';
import { signIn } from '../../../services/auth/sign-in.js';
import { signOut, type UserPrincipal, verifyUserToken } from '../../../services/auth/tokens.js';
import type { UserRecord } from '../../../store/store.js';
import { COOKIE_OPTIONS, CSRF_COOKIE, SESSION_COOKIE } from '../../auth.js';
import type { AppDeps, ZodApp } from '../../context.js';
import { jsonResponse, withProblems } from '../../schemas.js';
import { consoleSessionSchema, consoleSessionStatusSchema } from '../../../contract/session.js';
import { SIGN_IN_REQUEST } from './token.js';

/** Why a session cookie does not sign anyone in: no cookie, or one no longer (or never) valid. */
const SIGNED_OUT: ReadonlySet<string> = new Set([
  'missing_token',
  'invalid_token',
  'token_expired',
  'token_revoked',
] satisfies ProblemCode[]);

/** Who the session cookie belongs to; 401 when there is none or it is no longer valid. */
async function sessionPrincipal(deps: AppDeps, request: FastifyRequest): Promise<UserPrincipal> {
  const token = request.cookies[SESSION_COOKIE];
  if (token === undefined || token === '') throw new AppError('missing_token', { reason: 'cookie' });
  return verifyUserToken(deps, token);
}

/**
 * The console's sign-in: the user token goes into an HttpOnly, SameSite=Strict cookie (Secure over https)
 * that page scripts cannot read, and writes made with it need the CSRF token this answers with. The
 * sign-in itself is JSON only, which a cross-site form cannot send.
 */
export function sessionRoutes(app: ZodApp, installDir?: string): void {
  const { deps, signInThrottle } = app.services;
  const answer = (reply: FastifyReply, user: UserRecord, expiresIn: number) => ({
    user: { id: user.id, email: user.email },
    csrf_token: reply.generateCsrf(),
    expires_in: expiresIn,
    install_dir: installDir ?? null,
  });

  app.post(
    '/session',
    {
      bodyLimit: SIGN_IN_REQUEST.bodyLimit,
      schema: {
        tags: ['auth'],
        operationId: 'signInToConsole',
        summary: 'Sign in to the console',
        security: [],
        description: 'Sets the session cookie; throttled like POST /auth/v1/token.',
        body: SIGN_IN_REQUEST.body,
        response: withProblems(
          { 200: jsonResponse('Signed in: the session cookie is set', consoleSessionSchema) },
          SIGN_IN_REQUEST.problems,
        ),
      },
    },
    async (request, reply) => {
      const { user, session } = await signIn(deps, signInThrottle, request.body, request.ip);
      reply.setCookie(SESSION_COOKIE, session.access_token, {
        ...COOKIE_OPTIONS,
        maxAge: session.expires_in,
      });
      return answer(reply, user, session.expires_in);
    },
  );

  app.get(
    '/session',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getConsoleSession',
        summary: 'The console session',
        security: [],
        description: 'Who is signed in, with a CSRF token for this page load; 401 when no one is.',
        response: withProblems(
          { 200: jsonResponse('Who the session cookie belongs to', consoleSessionSchema) },
          ['missing_token', 'invalid_token', 'token_expired', 'token_revoked', 'invalid_request'],
        ),
      },
    },
    async (request, reply) => {
      const { user, expiresAt } = await sessionPrincipal(deps, request);
      reply.header('cache-control', 'no-store');
      const secondsLeft = Math.floor((expiresAt - deps.clock.now()) / 1000);
      return answer(reply, user, Math.max(0, secondsLeft));
    },
  );

  app.get(
    '/session/status',
    {
      schema: {
        tags: ['auth'],
        operationId: 'getConsoleSessionStatus',
        summary: 'Whether anyone is signed in to the console',
        security: [],
        description:
          'GET /auth/v1/session without the 401: `signed_in` false when no one is (no cookie, or one that expired or was revoked), and otherwise the same answer with `signed_in` true. The console asks it on its first load, where a 401 would be logged by the browser as an error.',
        response: withProblems(
          { 200: jsonResponse('Whether the session cookie signs anyone in', consoleSessionStatusSchema) },
          ['invalid_request'],
        ),
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      // Only "no one is signed in" is an answer here; a storage failure is still a 503.
      const principal = await sessionPrincipal(deps, request).catch((error: unknown) => {
        if (error instanceof AppError && SIGNED_OUT.has(error.code)) return undefined;
        throw error;
      });
      if (principal === undefined) return { signed_in: false as const };
      const secondsLeft = Math.floor((principal.expiresAt - deps.clock.now()) / 1000);
      return { signed_in: true as const, ...answer(reply, principal.user, Math.max(0, secondsLeft)) };
    },
  );

  app.delete(
    '/session',
    {
      onRequest: (request, reply, done) => {
        app.csrfProtection(request, reply, done);
      },
      schema: {
        tags: ['auth'],
        operationId: 'signOutOfConsole',
        summary: 'Sign out of the console',
        security: [],
        description:
          'Clears the cookies and revokes the session on the server: a copy of the cookie stops working too.',
        response: withProblems({ 204: z.null().describe('Signed out') }, [
          'csrf_failed',
          'invalid_request',
          'storage_full',
        ]),
      },
    },
    async (request, reply) => {
      // A copied cookie must stop working too, not just this browser's copy; an invalid one is gone anyway.
      const principal = await sessionPrincipal(deps, request).catch(() => undefined);
      if (principal) await signOut(deps, principal);
      reply.clearCookie(SESSION_COOKIE, COOKIE_OPTIONS).clearCookie(CSRF_COOKIE, COOKIE_OPTIONS);
      return reply.code(204).send(null);
    },
  );
}
