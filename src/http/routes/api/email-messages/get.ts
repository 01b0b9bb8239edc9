import { emailMessageSchema } from '../../../../contract/email.js';
import { getEmail } from '../../../../services/email/messages.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
import { emailMessageId } from '../../email/email-key.js';

export const emailMessageParams = workspaceParams.extend({ message_id: emailMessageId });

/** GET /api/v1/workspaces/{id}/email-messages/{message_id}: a message with its recipients and events. */
export function getEmailMessageRoute(app: ZodApp): void {
  app.get(
    '/:message_id',
    {
      config: { permission: 'email.read' },
      schema: {
        tags: ['transactional email'],
        operationId: 'getEmailMessage',
        summary: 'Get an email message with its events',
        description: 'Each recipient’s status and every status change; never the bodies.',
        security: MANAGEMENT_SECURITY,
        params: emailMessageParams,
        response: withProblems({ 200: jsonResponse('The message', emailMessageSchema) }, [
          ...managementProblems('read', 'email.read'),
          'email_message_not_found',
        ]),
      },
    },
    (request) => getEmail(app.services.deps, { workspaceId: request.params.id }, request.params.message_id),
  );
}
