import { AppError } from '../../../../core/errors.js';
import { createPersonalToken } from '../../../../services/auth/tokens.js';
import { userPrincipalOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { createdAccessTokenSchema, newAccessTokenSchema } from '../../../../contract/access-tokens.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';

/** POST /api/v1/tokens: a personal access token (a user JWT with a `jti`) for the MCP server or scripts. */
export function createTokenRoute(app: ZodApp): void {
  app.post(
    '',
    {
      schema: {
        tags: ['tokens'],
        operationId: 'createAccessToken',
        summary: 'Create a personal access token',
        security: MANAGEMENT_SECURITY,
        description:
          'The token is in this response only. Use it as BRAND_CONTEXT_ACCESS_TOKEN for the MCP server.',
        body: newAccessTokenSchema,
        response: withProblems(
          {
            201: jsonResponse('The new token, shown in this response only', createdAccessTokenSchema),
          },
          [...managementProblems('write'), 'session_required'],
        ),
      },
    },
    async (request, reply) => {
      const { name, expires_in_days: expiresInDays } = request.body;
      const principal = userPrincipalOf(request);
      // A leaked personal token must not be able to mint its own successors.
      if (principal.kind === 'personal_token') throw new AppError('session_required');
      const created = await createPersonalToken(app.services.deps, principal.user, { name, expiresInDays });
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );
}
