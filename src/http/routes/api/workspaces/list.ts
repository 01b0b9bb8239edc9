import { z } from 'zod';
import { listWorkspacesOf } from '../../../../services/workspaces.js';
import { principalOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { withProblems, workspaceSchema } from '../../../schemas.js';

/** GET /api/v1/workspaces: the caller's workspaces and their role in each. */
export function listWorkspacesRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'List my workspaces',
        response: withProblems({ 200: z.object({ workspaces: z.array(workspaceSchema) }) }),
      },
    },
    async (request) => {
      const workspaces = await listWorkspacesOf(ctx.deps, principalOf(request).user.id);
      return {
        workspaces: workspaces.map((w) => ({
          id: w.id,
          name: w.name,
          created_at: w.createdAt,
          role: w.role,
        })),
      };
    },
  );
}
