import { emailMessagePageSchema } from '../../../../contract/email.js';
import { listEmails } from '../../../../services/email/messages.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
import { emailListQuery } from '../../email/email-key.js';

/** GET /api/v1/workspaces/{id}/email-messages: the message log, account email included, newest first. */
export function listEmailMessagesRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'email.read' },
      schema: {
        tags: ['transactional email'],
        operationId: 'listEmailMessages',
        summary: 'List the workspace’s email messages',
        description:
          'Every message of the workspace: those sent through /email/v1 and its account email (invites). Without bodies; `status=captured` lists the development mailbox.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        querystring: emailListQuery,
        response: withProblems(
          {
            200: jsonResponse(
              'Messages, newest first, and the cursor of the next page (null on the last)',
              emailMessagePageSchema,
            ),
          },
          managementProblems('read', 'email.read'),
        ),
      },
    },
    (request) => listEmails(app.services.deps, { workspaceId: request.params.id }, request.query),
  );
}
