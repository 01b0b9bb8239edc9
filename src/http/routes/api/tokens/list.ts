import { z } from 'zod';
import { userPrincipalOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { accessTokenListSchema } from '../../../../contract/access-tokens.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';

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
              accessTokenListSchema,
            ),
          },
          managementProblems('read'),
        ),
      },
    },
    async (request) => ({ tokens: await ctx.tokens.listPersonalTokens(userPrincipalOf(request).user) }),
  );
}
