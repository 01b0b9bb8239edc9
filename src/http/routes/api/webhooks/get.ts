import { webhookSchema } from '../../../../contract/webhooks.js';
import type { ZodApp } from '../../../context.js';
import { getWebhook } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  webhookParams,
  withProblems,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/webhooks/{webhook_id} */
export function getWebhookRoute(app: ZodApp): void {
  app.get(
    '/:webhook_id',
    {
      config: { permission: 'webhooks.read' },
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhook',
        summary: 'Get a webhook endpoint',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        response: withProblems({ 200: jsonResponse('The endpoint', webhookSchema) }, [
          ...managementProblems('read', 'webhooks.read'),
          'webhook_not_found',
        ]),
      },
    },
    (request) => getWebhook(app.services.deps, request.params.id, request.params.webhook_id),
  );
}
