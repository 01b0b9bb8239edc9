import { sessionSchema } from '../../../contract/session.js';
import { acceptInvite } from '../../../services/accounts/account-email.js';
import type { ZodApp } from '../../context.js';
import { jsonResponse, withProblems } from '../../schemas.js';
import { LINK_REQUEST } from './password-reset-confirm.js';

/**
 * POST /auth/v1/invites/accept: the invite link's token and the password its account chooses, once; answers
 * with a session as POST /auth/v1/token does (docs/account-email.md "Account email").
 */
export function acceptInviteRoute(app: ZodApp): void {
  app.post(
    '/invites/accept',
    {
      bodyLimit: LINK_REQUEST.bodyLimit,
      schema: {
        tags: ['auth'],
        operationId: 'acceptInvite',
        summary: 'Accept an invite',
        security: [],
        description:
          'Sets the password of the invited account (at least 12 characters) with the token of its invite link, and signs it in. Each link works once, for 7 days.',
        body: LINK_REQUEST.body,
        response: withProblems(
          { 200: jsonResponse('A user token (a JWT) and the seconds it lasts', sessionSchema) },
          LINK_REQUEST.problems,
        ),
      },
    },
    async (request) => acceptInvite(app.services.deps, app.services.accountLinks, request.body, request.ip),
  );
}
