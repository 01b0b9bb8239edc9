import { z } from 'zod';
import { ROLES } from '../../../../core/roles.js';
import { addMember } from '../../../../services/members.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { memberSchema, withProblems, workspaceParams } from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/members: adds an account by email (created if new). Admins cannot add owners. */
export function addMemberRoute(app: ZodApp, ctx: AppContext): void {
  app.post(
    '/api/v1/workspaces/:id/members',
    {
      config: { permission: 'members.write' },
      schema: {
        tags: ['members'],
        summary: 'Add a member',
        params: workspaceParams,
        body: z.strictObject({ email: z.string(), role: z.enum(ROLES) }),
        response: withProblems({ 201: memberSchema }),
      },
    },
    async (request, reply) => {
      const { role } = membershipOf(request);
      const member = await addMember(ctx.deps, actorOf(request), role, request.params.id, request.body);
      return reply.code(201).send(member);
    },
  );
}
