import { z } from 'zod';
import { OAuthError } from '../../../core/oauth.js';
import { authorizationParametersShape } from '../../../contract/oauth-consent.js';
import {
  checkAuthorizationRequest,
  checkAuthorizationTarget,
  clientRedirect,
} from '../../../services/oauth/authorization.js';
import type { ZodApp } from '../../context.js';
import { oauthIssuer } from './issuer.js';

/** The console's consent page, which the browser is sent to with the request's own query (web/). */
export const CONSENT_PAGE_PATH = '/connect';

/** The authorization request's parameters (each once): RFC 6749 §4.1.1, RFC 7636 §4.3, RFC 8707 §2. */
export const authorizationQuerySchema = z.object(authorizationParametersShape);

/**
 * GET /oauth/authorize (RFC 6749 §4.1.1): the client and its redirect URI are checked first, and a bad one is
 * answered here, never redirected; any other error goes back to the client (`error`, `state`, `iss`); a
 * good request goes on to the console's consent page (docs/oauth.md "Authorization").
 */
export function authorizeRoute(app: ZodApp): void {
  app.get(
    '/authorize',
    {
      schema: {
        hide: true,
        operationId: 'authorizeOAuthClient',
        summary: 'Start an OAuth authorization (code flow, PKCE S256)',
        description:
          'Redirects to the console’s consent page, or to the client with an error. `resource` defaults to <PUBLIC_URL>/mcp; `scope` to every scope.',
        querystring: authorizationQuerySchema,
        response: {
          302: z
            .null()
            .describe('To the consent page (/connect), or to the client’s redirect_uri with an error'),
        },
      },
    },
    async (request, reply) => {
      const { deps } = app.services;
      const issuer = oauthIssuer(app.services);
      const target = await checkAuthorizationTarget(deps, request.query);
      try {
        checkAuthorizationRequest(target, request.query, issuer);
      } catch (error) {
        if (!(error instanceof OAuthError)) throw error;
        return reply.redirect(
          clientRedirect(target, issuer, { error: error.error, error_description: error.description }),
          302,
        );
      }
      const query = request.url.slice(request.url.indexOf('?'));
      return reply.redirect(`${CONSENT_PAGE_PATH}${query}`, 302);
    },
  );
}
