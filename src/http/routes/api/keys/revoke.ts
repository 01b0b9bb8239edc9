import { z } from 'zod';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
import type { KeyRoutes } from './kinds.js';

/** DELETE /api/v1/workspaces/{id}/{brand-keys|api-keys}/{key_id}: revokes at once, everywhere; idempotent. */
export function revokeKeyRoute(keys: KeyRoutes) {
  return (app: ZodApp): void => {
    app.delete(
      '/:key_id',
      {
        config: { permission: 'keys.write' },
        schema: {
          tags: [keys.kind.apiTag],
          operationId: `revoke${keys.kind.codeName}`,
          summary: `Revoke a ${keys.kind.label}`,
          security: MANAGEMENT_SECURITY,
          params: workspaceParams.extend({ key_id: z.string().max(128) }),
          response: withProblems(
            { 200: jsonResponse('The key, revoked (also when it already was)', keys.schema) },
            [...managementProblems('write', 'keys.write'), keys.kind.problems.notFound],
          ),
        },
      },
      (request) =>
        keys.service.revoke(app.services.deps, actorOf(request), request.params.id, request.params.key_id),
    );
  };
}
