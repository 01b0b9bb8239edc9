import { z } from 'zod';
import { principalOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { accessTokenSchema, withProblems } from '../../../schemas.js';

/** GET /api/v1/tokens: the caller's personal access tokens; never the tokens themselves. */
export function listTokensRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/tokens',
    {
      schema: {
        tags: ['tokens'],
        summary: 'List my personal access tokens',
        response: withProblems({ 200: z.object({ tokens: z.array(accessTokenSchema) }) }),
      },
    },
    async (request) => ({ tokens: await ctx.tokens.listPersonalTokens(principalOf(request).user) }),
  );
}
