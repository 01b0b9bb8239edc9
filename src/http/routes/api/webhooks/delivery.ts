import { deliveryDetailSchema } from '../../../../contract/webhooks.js';
import type { ZodApp } from '../../../context.js';
import { getDelivery } from '../../../../services/webhooks/webhooks.js';
import {
  deliveryParams,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}: with its payload and every attempt. */
export function getDeliveryRoute(app: ZodApp): void {
  app.get(
    '/:webhook_id/deliveries/:delivery_id',
    {
      config: { permission: 'webhooks.read' },
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhookDelivery',
        summary: 'Get a delivery with its attempts',
        security: MANAGEMENT_SECURITY,
        params: deliveryParams,
        response: withProblems({ 200: jsonResponse('The delivery', deliveryDetailSchema) }, [
          ...managementProblems('read', 'webhooks.read'),
          'webhook_not_found',
          'delivery_not_found',
        ]),
      },
    },
    (request) =>
      getDelivery(
        app.services.deps,
        request.params.id,
        request.params.webhook_id,
        request.params.delivery_id,
      ),
  );
}
