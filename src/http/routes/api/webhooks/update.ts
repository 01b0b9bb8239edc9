import { webhookChangesSchema, webhookSchema } from '../../../../contract/webhooks.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { updateWebhook } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  webhookParams,
  withProblems,
} from '../../../schemas.js';

/** PATCH /api/v1/workspaces/{id}/webhooks/{webhook_id}: url, events, enabled, description. */
export function updateWebhookRoute(app: ZodApp): void {
  app.patch(
    '/:webhook_id',
    {
      config: { permission: 'webhooks.write' },
      schema: {
        tags: ['webhooks'],
        operationId: 'updateWebhook',
        summary: 'Change, disable or enable a webhook endpoint',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        body: webhookChangesSchema,
        response: withProblems({ 200: jsonResponse('The endpoint as changed', webhookSchema) }, [
          ...managementProblems('write', 'webhooks.write'),
          'webhook_not_found',
        ]),
      },
    },
    (request) =>
      updateWebhook(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.params.webhook_id,
        request.body,
      ),
  );
}
