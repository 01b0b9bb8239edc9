import { webhookListSchema } from '../../../../contract/webhooks.js';
import { withCreators } from '../../../../services/accounts/creators.js';
import type { ZodApp } from '../../../context.js';
import { listWebhooks } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * GET /api/v1/workspaces/{id}/webhooks: every endpoint, oldest first, never a secret; each with its creator,
 * marked when they are no longer a member.
 */
export function listWebhooksRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'webhooks.read' },
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhooks',
        summary: 'List webhook endpoints',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          { 200: jsonResponse('The endpoints, oldest first', webhookListSchema) },
          managementProblems('read', 'webhooks.read'),
        ),
      },
    },
    async (request) => ({
      webhooks: await withCreators(
        app.services.deps,
        request.params.id,
        await listWebhooks(app.services.deps, request.params.id),
      ),
    }),
  );
}
