import { queuedDeliverySchema } from '../../../../contract/webhooks.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { sendWebhookTest } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  webhookParams,
  withProblems,
} from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/test: queues a `webhook.test` event for the endpoint. */
export function testWebhookRoute(app: ZodApp): void {
  app.post(
    '/:webhook_id/test',
    {
      config: { permission: 'webhooks.write' },
      schema: {
        tags: ['webhooks'],
        operationId: 'testWebhook',
        summary: 'Send a test event',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        response: withProblems(
          { 202: jsonResponse('Queued: follow it in the delivery log', queuedDeliverySchema) },
          [...managementProblems('write', 'webhooks.write'), 'webhook_not_found', 'webhook_disabled'],
        ),
      },
    },
    async (request, reply) => {
      const queued = await sendWebhookTest(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.params.webhook_id,
      );
      return reply.code(202).send(queued);
    },
  );
}
