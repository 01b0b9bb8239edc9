import { revokeBrandKey } from '../../../../services/brand-keys.js';
import { actorOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { brandKeySchema, withProblems, workspaceParams } from '../../../schemas.js';
import { z } from 'zod';

/** DELETE /api/v1/workspaces/{id}/brand-keys/{key_id}: revokes at once, everywhere; idempotent. */
export function revokeBrandKeyRoute(app: ZodApp, ctx: AppContext): void {
  app.delete(
    '/api/v1/workspaces/:id/brand-keys/:key_id',
    {
      config: { permission: 'keys.write' },
      schema: {
        tags: ['brand keys'],
        summary: 'Revoke a brand read key',
        params: workspaceParams.extend({ key_id: z.string().max(128) }),
        response: withProblems({ 200: brandKeySchema }),
      },
    },
    (request) => revokeBrandKey(ctx.deps, actorOf(request), request.params.id, request.params.key_id),
  );
}
