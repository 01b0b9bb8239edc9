import { z } from 'zod';
import { memberInviteSchema } from '../../../../contract/members.js';
import { resendInvite } from '../../../../services/accounts/members.js';
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
 * POST /api/v1/workspaces/{id}/members/{user_id}/invite: emails a member who has not chosen a password yet a
 * new invite; the links sent before stop working (docs/account-email.md "Account email").
 */
export function resendInviteRoute(app: ZodApp): void {
  app.post(
    '/:user_id/invite',
    {
      config: { permission: 'members.write' },
      schema: {
        tags: ['members'],
        operationId: 'resendInvite',
        summary: 'Resend an invite',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams.extend({ user_id: z.string().max(128) }),
        description:
          'Queues a new invite email with a link valid for 7 days, and ends the links sent before. A member whose account has a password answers 409 invite_not_needed.',
        response: withProblems({ 202: jsonResponse('The invite is queued', memberInviteSchema) }, [
          ...managementProblems('write', 'members.write'),
          'member_not_found',
          'invite_not_needed',
        ]),
      },
    },
    async (request, reply) => {
      const { role } = membershipOf(request);
      const invite = await resendInvite(
        app.services.deps,
        app.services.accountMail,
        actorOf(request),
        role,
        request.params.id,
        request.params.user_id,
      );
      return reply.code(202).send(invite);
    },
  );
}
