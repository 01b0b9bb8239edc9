import { z } from 'zod';
import { listMembers } from '../../../../services/members.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { memberSchema, withProblems, workspaceParams } from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/members */
export function listMembersRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/members',
    {
      config: { permission: 'members.read' },
      schema: {
        tags: ['members'],
        summary: 'List members',
        params: workspaceParams,
        response: withProblems({ 200: z.object({ members: z.array(memberSchema) }) }),
      },
    },
    async (request) => ({ members: await listMembers(ctx.deps, request.params.id) }),
  );
}
