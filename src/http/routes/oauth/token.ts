import { z } from 'zod';
import { requestTokens } from '../../../services/oauth/tokens.js';
import type { ZodApp } from '../../context.js';
import { formBodySchema, NO_STORE } from './schemas.js';

const tokenResponseSchema = z.object({
  access_token: z.string().describe('oat_…: for Authorization: Bearer on /mcp, for 1 hour'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('Seconds the access token lives: 3600'),
  refresh_token: z
    .string()
    .describe('ort_…: for one new pair of tokens, within 30 days; it is used up by that (rotation)'),
  scope: z.string().describe('The scopes granted, space-separated'),
});

/**
 * POST /oauth/token (RFC 6749 §3.2): an authorization code with its PKCE verifier, or a refresh token, for a
 * new access token and refresh token (docs/oauth.md "Tokens"). Form-encoded, as the RFC says.
 */
export function tokenRoute(app: ZodApp): void {
  app.post(
    '/token',
    {
      schema: {
        hide: true,
        operationId: 'requestOAuthTokens',
        summary: 'Exchange a code or refresh token for tokens',
        consumes: ['application/x-www-form-urlencoded'],
        body: formBodySchema.describe(
          'grant_type=authorization_code with code, redirect_uri, client_id, code_verifier (and resource); or grant_type=refresh_token with refresh_token and client_id',
        ),
        response: { 200: tokenResponseSchema },
      },
    },
    async (request, reply) => {
      const tokens = await requestTokens(app.services.deps, request.body);
      return reply.headers(NO_STORE).send(tokens);
    },
  );
}
