import { createdWebhookSchema, newWebhookSchema } from '../../../../contract/webhooks.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { createWebhook } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/webhooks: a new endpoint, with its signing secret. */
export function createWebhookRoute(app: ZodApp): void {
  app.post(
    '',
    {
      config: { permission: 'webhooks.write' },
      schema: {
        tags: ['webhooks'],
        operationId: 'createWebhook',
        summary: 'Create a webhook endpoint',
        description:
          'The URL must be https:// and reach a public address (docs/webhooks.md "Webhooks"); a refused one is 400 naming `url`. A workspace has at most `WEBHOOK_ENDPOINT_LIMIT` endpoints (25 by default): past it, 409 `webhook_limit_reached`.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        body: newWebhookSchema,
        response: withProblems(
          { 201: jsonResponse('The endpoint and its signing secret (whsec_…)', createdWebhookSchema) },
          [...managementProblems('write', 'webhooks.write'), 'webhook_limit_reached'],
        ),
      },
    },
    async (request, reply) => {
      const webhook = await createWebhook(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.body,
      );
      return reply
        .code(201)
        .header('location', `/api/v1/workspaces/${webhook.workspace_id}/webhooks/${webhook.id}`)
        .send(webhook);
    },
  );
}
