import { passwordResetAcceptedSchema, passwordResetRequestSchema } from '../../../contract/account-email.js';
import type { ZodApp } from '../../context.js';
import { requestPasswordReset } from '../../../services/accounts/account-email.js';
import { BODY_PROBLEMS, jsonResponse, withProblems } from '../../schemas.js';

/** The same words whether or not the address has an account, so the answer does not tell. */
const ACCEPTED = {
  message:
    'If an account has this email address, a link to choose a new password is on its way. It works once, for an hour.',
};

/**
 * POST /auth/v1/password-reset: emails a reset link to the account of an address, if there is one; the
 * answer is the same either way (docs/account-email.md "Account email").
 */
export function requestPasswordResetRoute(app: ZodApp): void {
  app.post(
    '/password-reset',
    {
      bodyLimit: 16 * 1024,
      schema: {
        tags: ['auth'],
        operationId: 'requestPasswordReset',
        summary: 'Ask for a password reset link',
        security: [],
        description:
          'Always 202 with the same body, after the same work, whether or not an account has the address: the link is made after the answer. Throttled per client address and per email address.',
        body: passwordResetRequestSchema,
        response: withProblems(
          {
            202: jsonResponse(
              'Accepted: an email is sent if the account exists',
              passwordResetAcceptedSchema,
            ),
          },
          [...BODY_PROBLEMS, 'rate_limited'],
        ),
      },
    },
    async (request, reply) => {
      // The link is made after this answer, if at all; a failure then is logged with this request's id.
      await requestPasswordReset(
        app.services.deps,
        app.services.accountMail,
        app.services.accountLinks,
        request.body,
        request.ip,
        request.log,
      );
      return reply.code(202).send(ACCEPTED);
    },
  );
}
