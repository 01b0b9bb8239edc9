import type { ZodApp } from '../../context.js';
import { signIn } from '../../../services/auth/sign-in.js';
import { sessionSchema, signInRequestSchema } from '../../../contract/session.js';
import { BODY_PROBLEMS, jsonResponse, withProblems } from '../../schemas.js';

/** What a sign-in takes and may be refused with: POST /auth/v1/token, and the console's POST /auth/v1/session. */
export const SIGN_IN_REQUEST = {
  bodyLimit: 16 * 1024,
  body: signInRequestSchema,
  problems: [...BODY_PROBLEMS, 'invalid_credentials', 'rate_limited', 'sign_in_busy'],
} as const;

/** POST /auth/v1/token: email and password for a short-lived user token. Throttled per IP and account. */
export function signInRoute(app: ZodApp): void {
  app.post(
    '/token',
    {
      bodyLimit: SIGN_IN_REQUEST.bodyLimit,
      schema: {
        tags: ['auth'],
        operationId: 'signIn',
        summary: 'Sign in',
        security: [],
        description: 'Exchanges an email and password for a short-lived user token (a JWT).',
        body: SIGN_IN_REQUEST.body,
        response: withProblems(
          { 200: jsonResponse('A user token (a JWT) and the seconds it lasts', sessionSchema) },
          SIGN_IN_REQUEST.problems,
        ),
      },
    },
    async (request) =>
      (await signIn(app.services.deps, app.services.signInThrottle, request.body, request.ip)).session,
  );
}
