import { z } from 'zod';
import type { AppContext, ZodApp } from '../../context.js';
import { sessionSchema, withProblems } from '../../schemas.js';

/** POST /auth/v1/token: email and password for a short-lived user token. Throttled per IP and account. */
export function signInRoute(app: ZodApp, ctx: AppContext): void {
  app.post(
    '/auth/v1/token',
    {
      bodyLimit: 16 * 1024,
      schema: {
        tags: ['auth'],
        summary: 'Sign in',
        description: 'Exchanges an email and password for a short-lived user token (a JWT).',
        body: z.object({ email: z.string().max(320), password: z.string().max(1024) }),
        response: withProblems({ 200: sessionSchema }),
      },
    },
    async (request) => (await ctx.signIn.signIn(request.body, request.ip)).session,
  );
}
