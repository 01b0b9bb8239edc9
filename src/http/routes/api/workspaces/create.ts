import { z } from 'zod';
import { createWorkspace } from '../../../../services/workspaces.js';
import { actorOf, principalOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { withProblems, workspaceSchema } from '../../../schemas.js';

/** POST /api/v1/workspaces: creates a workspace with an empty brand; the caller becomes its owner. */
export function createWorkspaceRoute(app: ZodApp, ctx: AppContext): void {
  app.post(
    '/api/v1/workspaces',
    {
      schema: {
        tags: ['workspaces'],
        summary: 'Create a workspace',
        body: z.strictObject({ name: z.string() }),
        response: withProblems({ 201: workspaceSchema }),
      },
    },
    async (request, reply) => {
      const owner = principalOf(request).user;
      const workspace = await createWorkspace(ctx.deps, actorOf(request), { name: request.body.name, owner });
      return reply
        .code(201)
        .send({ id: workspace.id, name: workspace.name, created_at: workspace.createdAt, role: 'owner' });
    },
  );
}
