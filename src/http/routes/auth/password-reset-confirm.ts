import { z } from 'zod';
import { linkRequestSchema } from '../../../contract/account-email.js';
import type { ZodApp } from '../../context.js';
import { confirmPasswordReset } from '../../../services/accounts/account-email.js';
import { BODY_PROBLEMS, withProblems } from '../../schemas.js';

/** What the routes taking a link's token and a new password take, and may be refused with. */
export const LINK_REQUEST = {
  bodyLimit: 16 * 1024,
  body: linkRequestSchema,
  problems: [...BODY_PROBLEMS, 'link_invalid', 'rate_limited', 'sign_in_busy'],
} as const;

/**
 * POST /auth/v1/password-reset/confirm: sets a new password with a reset link's token, and ends every sign-in
 * session of the account (docs/account-email.md "Account email").
 */
export function confirmPasswordResetRoute(app: ZodApp): void {
  app.post(
    '/password-reset/confirm',
    {
      bodyLimit: LINK_REQUEST.bodyLimit,
      schema: {
        tags: ['auth'],
        operationId: 'confirmPasswordReset',
        summary: 'Set a new password',
        security: [],
        description:
          'Sets the new password with the token of a password reset link, which works once, for an hour. Every session signed in before ends; personal access tokens keep working.',
        body: LINK_REQUEST.body,
        response: withProblems({ 204: z.null().describe('The password is set') }, LINK_REQUEST.problems),
      },
    },
    async (request, reply) => {
      await confirmPasswordReset(app.services.deps, app.services.accountLinks, request.body, request.ip);
      return reply.code(204).send(null);
    },
  );
}
