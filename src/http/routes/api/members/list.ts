import { z } from 'zod';
import { listMembers } from '../../../../services/members.js';
import type { AppContext, ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  memberSchema,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/members */
export function listMembersRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/members',
    {
      config: { permission: 'members.read' },
      schema: {
        tags: ['members'],
        operationId: 'listMembers',
        summary: 'List members',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          {
            200: jsonResponse(
              "The workspace's members and their roles",
              z.object({ members: z.array(memberSchema) }),
            ),
          },
          managementProblems('read', 'members.read'),
        ),
      },
    },
    async (request) => ({ members: await listMembers(ctx.deps, request.params.id) }),
  );
}
