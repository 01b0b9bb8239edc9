import { webhookSecretSchema } from '../../../../contract/webhooks.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { rotateWebhookSecret } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  webhookParams,
  withProblems,
} from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/webhooks/{webhook_id}/rotate-secret: the old secret signs beside it for 24 h. */
export function rotateWebhookSecretRoute(app: ZodApp): void {
  app.post(
    '/:webhook_id/rotate-secret',
    {
      config: { permission: 'webhooks.write' },
      schema: {
        tags: ['webhooks'],
        operationId: 'rotateWebhookSecret',
        summary: 'Rotate a webhook endpoint’s signing secret',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        response: withProblems(
          {
            200: jsonResponse(
              'The new secret, and until when the previous one still signs',
              webhookSecretSchema,
            ),
          },
          [...managementProblems('write', 'webhooks.write'), 'webhook_not_found'],
        ),
      },
    },
    async (request, reply) => {
      const secret = await rotateWebhookSecret(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.params.webhook_id,
      );
      return reply.header('cache-control', 'no-store').send(secret);
    },
  );
}
