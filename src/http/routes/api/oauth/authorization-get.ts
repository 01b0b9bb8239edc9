import { oauthAuthorizationSchema } from '../../../../contract/oauth-consent.js';
import { describeAuthorization } from '../../../../services/oauth/authorization.js';
import { userPrincipalOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';
import { authorizationQuerySchema } from '../../oauth/authorize.js';
import { oauthIssuer } from '../../oauth/issuer.js';

/**
 * GET /api/v1/oauth/authorization: what the console's consent page shows for an `/oauth/authorize` request
 * (its query, passed on): the app, its redirect host, the scopes asked, and the caller's workspaces with
 * the scopes their role there may grant.
 */
export function getAuthorizationRoute(app: ZodApp): void {
  app.get(
    '',
    {
      schema: {
        tags: ['oauth'],
        operationId: 'getOauthAuthorization',
        summary: 'Describe an authorization request for consent',
        security: MANAGEMENT_SECURITY,
        querystring: authorizationQuerySchema,
        response: withProblems(
          {
            200: jsonResponse('The request, checked, as the consent page shows it', oauthAuthorizationSchema),
          },
          [...managementProblems('read'), 'invalid_authorization_request', 'storage_full'],
        ),
      },
    },
    async (request, reply) => {
      const { user } = userPrincipalOf(request);
      const described = await describeAuthorization(
        app.services.deps,
        user,
        request.query,
        oauthIssuer(app.services),
      );
      return reply.header('cache-control', 'no-store').send(described);
    },
  );
}
