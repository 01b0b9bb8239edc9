import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { createdKeySchema, newKeySchema } from '../../../../contract/keys.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';
import type { KeyRoutes } from './kinds.js';

/** POST /api/v1/workspaces/{id}/{brand-keys|api-keys}: Settings → Agent Access → Create Key. Shown once. */
export function createKeyRoute(keys: KeyRoutes) {
  return (app: ZodApp): void => {
    app.post(
      '',
      {
        config: { permission: 'keys.write' },
        schema: {
          tags: [keys.kind.apiTag],
          operationId: `create${keys.kind.codeName}`,
          summary: `Create a ${keys.kind.label}`,
          security: MANAGEMENT_SECURITY,
          description: `${keys.kind.purpose} The key is in this response only; it expires 90 days after creation.`,
          params: workspaceParams,
          body: newKeySchema,
          response: withProblems(
            { 201: jsonResponse('The new key, shown in this response only', createdKeySchema) },
            [...managementProblems('write', 'keys.write')],
          ),
        },
      },
      async (request, reply) => {
        const created = await keys.service.create(app.services.deps, actorOf(request), {
          workspaceId: request.params.id,
          name: request.body.name,
        });
        return reply.code(201).header('cache-control', 'no-store').send(created);
      },
    );
  };
}
