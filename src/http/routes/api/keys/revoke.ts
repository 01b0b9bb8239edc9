import { z } from 'zod';
import { actorOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { withProblems, workspaceParams } from '../../../schemas.js';
import type { KeyRoutes } from './kinds.js';

/** DELETE /api/v1/workspaces/{id}/{brand-keys|api-keys}/{key_id}: revokes at once, everywhere; idempotent. */
export function revokeKeyRoute(kind: KeyRoutes) {
  return (app: ZodApp, ctx: AppContext): void => {
    app.delete(
      `/api/v1/workspaces/:id/${kind.path}/:key_id`,
      {
        config: { permission: 'keys.write' },
        schema: {
          tags: [kind.tag],
          summary: `Revoke a ${kind.noun}`,
          params: workspaceParams.extend({ key_id: z.string().max(128) }),
          response: withProblems({ 200: kind.schema }),
        },
      },
      (request) => kind.revoke(ctx.deps, actorOf(request), request.params.id, request.params.key_id),
    );
  };
}
