import { z } from 'zod';
import { DELIVERY_STATUSES, deliveryPageSchema } from '../../../../contract/webhooks.js';
import type { ZodApp } from '../../../context.js';
import { listDeliveries } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  webhookParams,
  withProblems,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/deliveries: the delivery log, newest first. */
export function listDeliveriesRoute(app: ZodApp): void {
  app.get(
    '/:webhook_id/deliveries',
    {
      config: { permission: 'webhooks.read' },
      schema: {
        tags: ['webhooks'],
        operationId: 'listWebhookDeliveries',
        summary: 'List an endpoint’s deliveries',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        querystring: z.strictObject({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          cursor: z.string().max(512).optional().describe('next_cursor of the previous page'),
          status: z.enum(DELIVERY_STATUSES).optional(),
        }),
        response: withProblems(
          {
            200: jsonResponse(
              'Deliveries, newest first, and the cursor of the next page',
              deliveryPageSchema,
            ),
          },
          [...managementProblems('read', 'webhooks.read'), 'webhook_not_found'],
        ),
      },
    },
    (request) =>
      listDeliveries(app.services.deps, request.params.id, request.params.webhook_id, request.query),
  );
}
