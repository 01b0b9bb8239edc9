import { z } from 'zod';
import { createBrandKey } from '../../../../services/brand-keys.js';
import { actorOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { createdBrandKeySchema, withProblems, workspaceParams } from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/brand-keys: Settings → Agent Access → Create Key. The key is shown once. */
export function createBrandKeyRoute(app: ZodApp, ctx: AppContext): void {
  app.post(
    '/api/v1/workspaces/:id/brand-keys',
    {
      config: { permission: 'keys.write' },
      schema: {
        tags: ['brand keys'],
        summary: 'Create a brand read key',
        description: 'The key is in this response only; it expires 90 days after creation.',
        params: workspaceParams,
        body: z.strictObject({ name: z.string().describe('A descriptive name, e.g. "newsletter pipeline"') }),
        response: withProblems({ 201: createdBrandKeySchema }),
      },
    },
    async (request, reply) => {
      const created = await createBrandKey(ctx.deps, actorOf(request), {
        workspaceId: request.params.id,
        name: request.body.name,
      });
      return reply.code(201).header('cache-control', 'no-store').send(created);
    },
  );
}
