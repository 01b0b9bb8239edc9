import { webhookSecretSchema } from '../../../../contract/webhooks.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { revealWebhookSecret } from '../../../../services/webhooks/webhooks.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  webhookParams,
  withProblems,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/webhooks/{webhook_id}/secret: shown again, and audited. */
export function webhookSecretRoute(app: ZodApp): void {
  app.get(
    '/:webhook_id/secret',
    {
      config: { permission: 'webhooks.write' },
      // A HEAD would be audited as a reveal while revealing nothing.
      exposeHeadRoute: false,
      schema: {
        tags: ['webhooks'],
        operationId: 'getWebhookSecret',
        summary: 'Reveal a webhook endpoint’s signing secret',
        security: MANAGEMENT_SECURITY,
        params: webhookParams,
        response: withProblems({ 200: jsonResponse('The signing secret', webhookSecretSchema) }, [
          ...managementProblems('read', 'webhooks.write'),
          'webhook_not_found',
          'secret_unreadable',
          // The reveal is audited: a write.
          'storage_full',
        ]),
      },
    },
    async (request, reply) => {
      const secret = await revealWebhookSecret(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.params.webhook_id,
      );
      return reply.header('cache-control', 'no-store').send(secret);
    },
  );
}
