import { z } from 'zod';
import { withCreators } from '../../../../services/accounts/creators.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
import type { KeyRoutes } from './kinds.js';

/**
 * GET /api/v1/workspaces/{id}/{brand-keys|api-keys|email-keys}: status, expiry, last use and creator (marked
 * when they are no longer a member); never the secret.
 */
export function listKeysRoute(keys: KeyRoutes) {
  return (app: ZodApp): void => {
    app.get(
      '',
      {
        config: { permission: keys.kind.listPermission },
        schema: {
          tags: [keys.kind.apiTag],
          operationId: `list${keys.kind.codeName}s`,
          summary: `List ${keys.kind.label}s`,
          security: MANAGEMENT_SECURITY,
          params: workspaceParams,
          response: withProblems(
            {
              200: jsonResponse(
                `The workspace's ${keys.kind.label}s, newest first: never the secret`,
                z.object({ keys: z.array(keys.listedSchema) }),
              ),
            },
            managementProblems('read', keys.kind.listPermission),
          ),
        },
      },
      async (request) => ({
        keys: await withCreators(
          app.services.deps,
          request.params.id,
          await keys.service.list(app.services.deps, request.params.id, app.services.deps.usage),
        ),
      }),
    );
  };
}
