import { z } from 'zod';
import { memberCredentialsSchema } from '../../../../contract/members.js';
import { AppError } from '../../../../core/errors.js';
import { removeMember } from '../../../../services/accounts/members.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * The option is a query parameter, as Fastify takes a DELETE's options (a route with a body schema requires a
 * body). A body naming it would otherwise be ignored, leaving keys working that the caller meant to revoke: a
 * body with anything in it is refused, saying where the option goes.
 */
const removeQuery = z.strictObject({
  revoke_credentials: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      'true: also revoke the active brand read keys and workspace API keys the member created and disable their webhook endpoints, in the same transaction',
    ),
});

function refuseBody(body: unknown): void {
  if (body === undefined || body === null) return;
  if (typeof body === 'object' && Object.keys(body).length === 0) return;
  throw new AppError('invalid_request', {
    reason: 'input',
    subject: 'Unexpected body',
    fields: [
      {
        field: '',
        message:
          'is not read when removing a member: send ?revoke_credentials=true in the query string instead',
      },
    ],
  });
}

/**
 * DELETE /api/v1/workspaces/{id}/members/{user_id}: admins cannot remove owners; the last owner stays. With
 * `revoke_credentials`, the member's keys and webhook endpoints go in the same transaction, and the answer
 * says which.
 */
export function removeMemberRoute(app: ZodApp): void {
  app.delete(
    '/:user_id',
    {
      config: { permission: 'members.write' },
      schema: {
        tags: ['members'],
        operationId: 'removeMember',
        summary: 'Remove a member',
        description:
          'Keys and webhook endpoints the member created belong to the workspace and keep working after the removal, unless revoke_credentials is true (see GET …/members/{user_id}/credentials for what that ends).',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams.extend({ user_id: z.string().max(128) }),
        querystring: removeQuery,
        response: withProblems(
          {
            200: jsonResponse(
              'Removed with revoke_credentials: the keys it revoked and the endpoints it disabled',
              memberCredentialsSchema,
            ),
            204: z.null().describe('Removed; what they created keeps working'),
          },
          [...managementProblems('write', 'members.write'), 'member_not_found', 'last_owner'],
        ),
      },
    },
    async (request, reply) => {
      refuseBody(request.body);
      const { role } = membershipOf(request);
      const revoked = await removeMember(
        app.services.deps,
        actorOf(request),
        role,
        request.params.id,
        request.params.user_id,
        { revokeCredentials: request.query.revoke_credentials === 'true' },
      );
      if (revoked === undefined) return reply.code(204).send(null);
      return reply.code(200).send(revoked);
    },
  );
}
