import { z } from 'zod';
import { ROLES } from '../../../../core/roles.js';
import { addMember } from '../../../../services/members.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { addedMemberSchema } from '../../../../contract/members.js';
import {
  BODY_PROBLEMS,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * POST /api/v1/workspaces/{id}/members: adds an account by email (created if new), optionally with a
 * temporary password for an account that has none (README "Management API"). Admins cannot add owners.
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
          'With `password`, a new account (or one without a password yet) gets it as a temporary password to sign in with; an account with a password of its own answers 409 account_has_password.',
        body: z.strictObject({
          email: z.string(),
          role: z.enum(ROLES),
          password: z
            .string()
            .optional()
            .describe('Temporary password (at least 12 characters): share it safely; the member changes it'),
        }),
        response: withProblems({ 201: jsonResponse('The new member', addedMemberSchema) }, [
          ...managementProblems('write', 'members.write'),
          ...BODY_PROBLEMS,
          'member_exists',
          'account_has_password',
        ]),
      },
    },
    async (request, reply) => {
      const { role } = membershipOf(request);
      const member = await addMember(
        app.services.deps,
        actorOf(request),
        role,
        request.params.id,
        request.body,
      );
      return reply.code(201).send(member);
    },
  );
}
