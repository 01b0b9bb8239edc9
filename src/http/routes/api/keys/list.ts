import { z } from 'zod';
import type { AppContext, ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
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
          operationId: `list${kind.operationNoun}s`,
          summary: `List ${kind.noun}s`,
          security: MANAGEMENT_SECURITY,
          params: workspaceParams,
          response: withProblems(
            {
              200: jsonResponse(
                `The workspace's ${kind.noun}s, newest first: never the secret`,
                z.object({ keys: z.array(kind.schema) }),
              ),
            },
            managementProblems('read', 'keys.read'),
          ),
        },
      },
      async (request) => ({ keys: await kind.list(ctx.deps, request.params.id, ctx.usage) }),
    );
  };
}
