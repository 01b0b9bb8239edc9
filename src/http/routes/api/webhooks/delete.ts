import { z } from 'zod';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { deleteWebhook } from '../../../../services/webhooks/webhooks.js';
import { MANAGEMENT_SECURITY, managementProblems, webhookParams, withProblems } from '../../../schemas.js';

/** DELETE /api/v1/workspaces/{id}/webhooks/{webhook_id}: the endpoint and its delivery log. */
export function deleteWebhookRoute(app: ZodApp): void {
  app.delete(
    '/:webhook_id',
    {
      config: { permission: 'webhooks.write' },
      schema: {
        tags: ['webhooks'],
        operationId: 'deleteWebhook',
        summary: 'Delete a webhook endpoint',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        response: withProblems({ 204: z.null().describe('Deleted, with its deliveries') }, [
          ...managementProblems('write', 'webhooks.write'),
          'webhook_not_found',
        ]),
      },
    },
    async (request, reply) => {
      await deleteWebhook(app.services.deps, actorOf(request), request.params.id, request.params.webhook_id);
      return reply.code(204).send(null);
    },
  );
}
