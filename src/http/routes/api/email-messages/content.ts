import { capturedEmailSchema } from '../../../../contract/email.js';
import { getCapturedEmail } from '../../../../services/email/messages.js';
import type { ZodApp } from '../../../context.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';
import { emailMessageParams } from './get.js';

/**
 * GET /api/v1/workspaces/{id}/email-messages/{message_id}/content: a captured message with its bodies (the
 * development mailbox). Sent messages are never shown: they may carry a one-time link not used yet.
 */
export function emailMessageContentRoute(app: ZodApp): void {
  app.get(
    '/:message_id/content',
    {
      config: { permission: 'email.read' },
      schema: {
        tags: ['transactional email'],
        operationId: 'getCapturedEmailContent',
        summary: 'Read a captured email with its bodies',
        description:
          'Only a message whose status is `captured` (queued while no SMTP_URL was set): any other answers 404 `email_message_not_found`.',
        security: MANAGEMENT_SECURITY,
        params: emailMessageParams,
        response: withProblems(
          { 200: jsonResponse('The captured message with its html and text bodies', capturedEmailSchema) },
          [...managementProblems('read', 'email.read'), 'email_message_not_found', 'secret_unreadable'],
        ),
      },
    },
    async (request, reply) => {
      const message = await getCapturedEmail(app.services.deps, request.params.id, request.params.message_id);
      return reply.header('cache-control', 'no-store').send(message);
    },
  );
}
