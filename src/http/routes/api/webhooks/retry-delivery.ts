import { queuedDeliverySchema } from '../../../../contract/webhooks.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { retryDelivery } from '../../../../services/webhooks/webhooks.js';
import {
  deliveryParams,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry: one more attempt, now. */
export function retryDeliveryRoute(app: ZodApp): void {
  app.post(
    '/:webhook_id/deliveries/:delivery_id/retry',
    {
      config: { permission: 'webhooks.write' },
      schema: {
        tags: ['webhooks'],
        operationId: 'retryWebhookDelivery',
        summary: 'Retry a delivery',
        description: 'Sends the same event (the same webhook-id) once more, whatever the delivery’s status.',
        security: MANAGEMENT_SECURITY,
        params: deliveryParams,
        response: withProblems({ 202: jsonResponse('Queued for one more attempt', queuedDeliverySchema) }, [
          ...managementProblems('write', 'webhooks.write'),
          'webhook_not_found',
          'delivery_not_found',
          'webhook_disabled',
          'delivery_in_progress',
        ]),
      },
    },
    async (request, reply) => {
      const queued = await retryDelivery(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.params.webhook_id,
        request.params.delivery_id,
      );
      return reply.code(202).send(queued);
    },
  );
}
