import { oauthDecisionSchema, oauthRedirectSchema } from '../../../../contract/oauth-consent.js';
import { AppError } from '../../../../core/errors.js';
import { decideAuthorization } from '../../../../services/oauth/authorization.js';
import { userPrincipalOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';
import { oauthIssuer } from '../../oauth/issuer.js';

/**
 * POST /api/v1/oauth/authorization: the user's Allow or Deny on the consent page, with the request it answers,
 * checked again here. Allow grants the chosen scopes in the chosen workspace (never beyond the user's role
 * there); the answer is where the browser goes: the app's redirect URI with `code` or `error`, `state`, `iss`.
 */
export function postAuthorizationRoute(app: ZodApp): void {
  app.post(
    '',
    {
      schema: {
        tags: ['oauth'],
        operationId: 'decideOauthAuthorization',
        summary: 'Allow or deny an authorization request',
        security: MANAGEMENT_SECURITY,
        body: oauthDecisionSchema,
        response: withProblems({ 200: jsonResponse('Where to send the browser', oauthRedirectSchema) }, [
          ...managementProblems('write'),
          'invalid_authorization_request',
          'consent_requires_session',
          'workspace_not_found',
          'workspace_forbidden',
          'insufficient_role',
        ]),
      },
    },
    async (request, reply) => {
      const principal = userPrincipalOf(request);
      // A leaked personal access token must not be able to connect apps for its user.
      if (principal.kind === 'personal_token') throw new AppError('consent_requires_session');
      const { workspace_id: workspaceId, scopes, decision, ...params } = request.body;
      const redirectTo = await decideAuthorization(
        app.services.deps,
        { kind: 'user', userId: principal.user.id, email: principal.user.email },
        params,
        oauthIssuer(app.services),
        { workspaceId, scopes, decision },
      );
      return reply.header('cache-control', 'no-store').send({ redirect_to: redirectTo });
    },
  );
}
