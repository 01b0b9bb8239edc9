import { z } from 'zod';
import { principalOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import {
  accessTokenSchema,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/** GET /api/v1/tokens: the caller's personal access tokens; never the tokens themselves. */
export function listTokensRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/tokens',
    {
      schema: {
        tags: ['tokens'],
        operationId: 'listAccessTokens',
        summary: 'List my personal access tokens',
        security: MANAGEMENT_SECURITY,
        response: withProblems(
          {
            200: jsonResponse(
              'My personal access tokens: never the tokens themselves',
              z.object({ tokens: z.array(accessTokenSchema) }),
            ),
          },
          managementProblems('read'),
        ),
      },
    },
    async (request) => ({ tokens: await ctx.tokens.listPersonalTokens(principalOf(request).user) }),
  );
}
