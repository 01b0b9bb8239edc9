import { z } from 'zod';
import { EMAIL_LIMITS } from '../../../../contract/email.js';
import { removeSuppression } from '../../../../services/email/settings.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { MANAGEMENT_SECURITY, managementProblems, withProblems, workspaceParams } from '../../../schemas.js';

/** DELETE /api/v1/workspaces/{id}/email-suppressions/{email}: the workspace may send to the address again. */
export function removeEmailSuppressionRoute(app: ZodApp): void {
  app.delete(
    '/:email',
    {
      config: { permission: 'email.write' },
      schema: {
        tags: ['transactional email'],
        operationId: 'removeEmailSuppression',
        summary: 'Remove a suppressed address',
        description:
          'Later messages to the address are sent again. If it still bounces, it is suppressed again.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams.extend({
          email: z.string().max(EMAIL_LIMITS.address).describe('The suppressed address'),
        }),
        response: withProblems({ 204: z.null().describe('Removed') }, [
          ...managementProblems('write', 'email.write'),
          'suppression_not_found',
        ]),
      },
    },
    async (request, reply) => {
      await removeSuppression(app.services.deps, actorOf(request), request.params.id, request.params.email);
      return reply.code(204).send(null);
    },
  );
}
