import { z } from 'zod';
import { removeMember } from '../../../../services/members.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { MANAGEMENT_SECURITY, managementProblems, withProblems, workspaceParams } from '../../../schemas.js';

/** DELETE /api/v1/workspaces/{id}/members/{user_id}: admins cannot remove owners; the last owner stays. */
export function removeMemberRoute(app: ZodApp): void {
  app.delete(
    '/:user_id',
    {
      config: { permission: 'members.write' },
      schema: {
        tags: ['members'],
        operationId: 'removeMember',
        summary: 'Remove a member',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams.extend({ user_id: z.string().max(128) }),
        response: withProblems({ 204: z.null().describe('Removed') }, [
          ...managementProblems('write', 'members.write'),
          'member_not_found',
          'last_owner',
        ]),
      },
    },
    async (request, reply) => {
      const { role } = membershipOf(request);
      await removeMember(
        app.services.deps,
        actorOf(request),
        role,
        request.params.id,
        request.params.user_id,
      );
      return reply.code(204).send(null);
    },
  );
}
