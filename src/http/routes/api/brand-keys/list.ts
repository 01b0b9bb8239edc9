import { z } from 'zod';
import { listBrandKeys } from '../../../../services/brand-keys.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { brandKeySchema, withProblems, workspaceParams } from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/brand-keys: status, expiry and last use of each key; never the secret. */
export function listBrandKeysRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/brand-keys',
    {
      config: { permission: 'keys.read' },
      schema: {
        tags: ['brand keys'],
        summary: 'List brand read keys',
        params: workspaceParams,
        response: withProblems({ 200: z.object({ keys: z.array(brandKeySchema) }) }),
      },
    },
    async (request) => ({ keys: await listBrandKeys(ctx.deps, request.params.id, ctx.usage) }),
  );
}
