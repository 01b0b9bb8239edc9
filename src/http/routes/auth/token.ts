import { z } from 'zod';
import type { ZodApp } from '../../context.js';
import { sessionSchema } from '../../../contract/session.js';
import { BODY_PROBLEMS, jsonResponse, withProblems } from '../../schemas.js';

/** POST /auth/v1/token: email and password for a short-lived user token. Throttled per IP and account. */
export function signInRoute(app: ZodApp): void {
  app.post(
    '/token',
    {
      bodyLimit: 16 * 1024,
      schema: {
        tags: ['auth'],
        operationId: 'signIn',
        summary: 'Sign in',
        security: [],
        description: 'Exchanges an email and password for a short-lived user token (a JWT).',
        body: z.object({ email: z.string().max(320), password: z.string().max(1024) }),
        response: withProblems(
          { 200: jsonResponse('A user token (a JWT) and the seconds it lasts', sessionSchema) },
          [...BODY_PROBLEMS, 'invalid_credentials', 'rate_limited', 'sign_in_busy'],
        ),
      },
    },
    async (request) => (await app.services.signIn.signIn(request.body, request.ip)).session,
  );
}
