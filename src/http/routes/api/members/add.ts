import { addMember } from '../../../../services/accounts/members.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { addedMemberSchema, newMemberSchema } from '../../../../contract/members.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * POST /api/v1/workspaces/{id}/members: adds an account by email (created if new). An account without a
 * password is emailed an invite, or given the temporary password sent along (docs/account-email.md "Account email").
 * Admins cannot add owners.
 */
export function addMemberRoute(app: ZodApp): void {
  app.post(
    '',
    {
      config: { permission: 'members.write' },
      schema: {
        tags: ['members'],
        operationId: 'addMember',
        summary: 'Add a member',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        description:
          'A new account (or one without a password yet) is emailed an invite: a link to choose a password, valid for 7 days (`invite` in the answer). With `password`, it gets that as a temporary password instead, and no invite; an account with a password of its own answers 409 account_has_password.',
        body: newMemberSchema,
        response: withProblems({ 201: jsonResponse('The new member', addedMemberSchema) }, [
          ...managementProblems('write', 'members.write'),
          'member_exists',
          'account_has_password',
        ]),
      },
    },
    async (request, reply) => {
      const { role } = membershipOf(request);
      const member = await addMember(
        app.services.deps,
        app.services.accountMail,
        actorOf(request),
        role,
        request.params.id,
        request.body,
      );
      return reply.code(201).send(member);
    },
  );
}
