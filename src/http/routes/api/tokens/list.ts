import { userPrincipalOf } from '../../../auth.js';
import { listPersonalTokens } from '../../../../services/auth/tokens.js';
import type { ZodApp } from '../../../context.js';
import { accessTokenListSchema } from '../../../../contract/access-tokens.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';

/** GET /api/v1/tokens: the caller's personal access tokens; never the tokens themselves. */
export function listTokensRoute(app: ZodApp): void {
  app.get(
    '',
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
    async (request) => ({
      tokens: await listPersonalTokens(app.services.deps, userPrincipalOf(request).user),
    }),
  );
}
