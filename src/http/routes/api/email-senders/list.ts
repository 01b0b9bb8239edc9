import { z } from 'zod';
import { emailSenderSchema } from '../../../../contract/email.js';
import { listSenders } from '../../../../services/email/settings.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/email-senders: what a message's `from` may be; the operator adds them. */
export function listEmailSendersRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'email.read' },
      schema: {
        tags: ['transactional email'],
        operationId: 'listEmailSenders',
        summary: 'List the workspace’s allowed senders',
        description:
          'The addresses, and the domains every address of which, the workspace may send from through /email/v1. The operator of this service adds and removes them (brand-context email-senders).',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          {
            200: jsonResponse(
              'Allowed senders, in alphabetical order',
              z.object({ senders: z.array(emailSenderSchema) }),
            ),
          },
          managementProblems('read', 'email.read'),
        ),
      },
    },
    async (request) => ({ senders: await listSenders(app.services.deps, request.params.id) }),
  );
}
