import { z } from 'zod';
import { emailMessageSchema } from '../../../contract/email.js';
import { getEmail } from '../../../services/email/messages.js';
import type { ZodApp } from '../../context.js';
import { jsonResponse, withProblems } from '../../schemas.js';
import { EMAIL_KEY_PROBLEMS, emailMessageId, emailWorkspaceOf } from './email-key.js';

/** GET /email/v1/messages/{message_id}: a message sent with the key's workspace, its recipients and events. */
export function getEmailRoute(app: ZodApp): void {
  app.get(
    '/:message_id',
    {
      config: { permission: 'email.send' },
      schema: {
        tags: ['transactional email'],
        operationId: 'getEmail',
        summary: 'Get a sent email with its events',
        description:
          'Each recipient’s status and every status change; never the bodies. Only messages sent through /email/v1 by the key’s workspace.',
        params: z.object({ message_id: emailMessageId }),
        response: withProblems({ 200: jsonResponse('The message', emailMessageSchema) }, [
          ...EMAIL_KEY_PROBLEMS,
          'email_message_not_found',
        ]),
      },
    },
    (request) =>
      getEmail(
        app.services.deps,
        { workspaceId: emailWorkspaceOf(request), source: 'api' },
        request.params.message_id,
      ),
  );
}
