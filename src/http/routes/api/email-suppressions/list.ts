import { z } from 'zod';
import { emailSuppressionSchema } from '../../../../contract/email.js';
import { listSuppressions } from '../../../../services/email/settings.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/email-suppressions: the addresses nothing is sent to since they bounced. */
export function listEmailSuppressionsRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'email.read' },
      schema: {
        tags: ['transactional email'],
        operationId: 'listEmailSuppressions',
        summary: 'List the workspace’s suppressed addresses',
        description:
          'An address that bounced (the relay answered 5xx) is suppressed: later messages to it are not sent, and its recipient is `suppressed`. Remove it to send to it again.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          {
            200: jsonResponse(
              'Suppressed addresses, newest first',
              z.object({ suppressions: z.array(emailSuppressionSchema) }),
            ),
          },
          managementProblems('read', 'email.read'),
        ),
      },
    },
    async (request) => ({ suppressions: await listSuppressions(app.services.deps, request.params.id) }),
  );
}
