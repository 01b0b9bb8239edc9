import { z } from 'zod';
import { revokeToken } from '../../../services/oauth/tokens.js';
import type { ZodApp } from '../../context.js';
import { formBodySchema, NO_STORE } from './schemas.js';

/**
 * POST /oauth/revoke (RFC 7009): ends the connection a refresh or access token belongs to. 200 whatever the
 * token was (§2.2), so nobody learns from it whether a token worked.
 */
export function revokeRoute(app: ZodApp): void {
  app.post(
    '/revoke',
    {
      schema: {
        hide: true,
        operationId: 'revokeOAuthToken',
        summary: 'Revoke a token (RFC 7009)',
        consumes: ['application/x-www-form-urlencoded'],
        body: formBodySchema.describe('token, and optionally token_type_hint and client_id'),
        response: {
          200: z.object({}).describe('Revoked, or no such live token: the same answer either way'),
        },
      },
    },
    async (request, reply) => {
      await revokeToken(app.services.deps, request.body);
      return reply.code(200).headers(NO_STORE).send({});
    },
  );
}
