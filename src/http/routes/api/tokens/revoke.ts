import { z } from 'zod';
import { userPrincipalOf } from '../../../auth.js';
import { revokePersonalToken } from '../../../../services/auth/tokens.js';
import type { ZodApp } from '../../../context.js';
import { accessTokenSchema } from '../../../../contract/access-tokens.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';

/** DELETE /api/v1/tokens/{token_id}: revokes one of the caller's tokens at once; idempotent. */
export function revokeTokenRoute(app: ZodApp): void {
  app.delete(
    '/:token_id',
    {
      schema: {
        tags: ['tokens'],
        operationId: 'revokeAccessToken',
        summary: 'Revoke a personal access token',
        security: MANAGEMENT_SECURITY,
        params: z.object({ token_id: z.string().max(128) }),
        response: withProblems(
          { 200: jsonResponse('The token, revoked (also when it already was)', accessTokenSchema) },
          [...managementProblems('write'), 'token_not_found'],
        ),
      },
    },
    (request) =>
      revokePersonalToken(app.services.deps, userPrincipalOf(request).user, request.params.token_id),
  );
}
