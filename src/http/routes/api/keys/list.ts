import { z } from 'zod';
import type { AppContext, ZodApp } from '../../../context.js';
import { withProblems, workspaceParams } from '../../../schemas.js';
import type { KeyRoutes } from './kinds.js';

/** GET /api/v1/workspaces/{id}/{brand-keys|api-keys}: status, expiry and last use; never the secret. */
export function listKeysRoute(kind: KeyRoutes) {
  return (app: ZodApp, ctx: AppContext): void => {
    app.get(
      `/api/v1/workspaces/:id/${kind.path}`,
      {
        config: { permission: 'keys.read' },
        schema: {
          tags: [kind.tag],
          summary: `List ${kind.noun}s`,
          params: workspaceParams,
          response: withProblems({ 200: z.object({ keys: z.array(kind.schema) }) }),
        },
      },
      async (request) => ({ keys: await kind.list(ctx.deps, request.params.id, ctx.usage) }),
    );
  };
}
