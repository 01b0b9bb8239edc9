import { z } from 'zod';
import { createWorkspace, toWorkspaceView } from '../../../../services/accounts/workspaces.js';
import { actorOf, userPrincipalOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { workspaceSchema } from '../../../../contract/workspaces.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';

/** POST /api/v1/workspaces: creates a workspace with an empty brand; the caller becomes its owner. */
export function createWorkspaceRoute(app: ZodApp): void {
  app.post(
    '',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'createWorkspace',
        summary: 'Create a workspace',
        security: MANAGEMENT_SECURITY,
        body: z.strictObject({ name: z.string() }),
        response: withProblems(
          { 201: jsonResponse('The new workspace; the caller is its owner', workspaceSchema) },
          [...managementProblems('write')],
        ),
      },
    },
    async (request, reply) => {
      const owner = userPrincipalOf(request).user;
      const workspace = await createWorkspace(app.services.deps, actorOf(request), {
        name: request.body.name,
        owner,
      });
      return reply.code(201).send({ ...toWorkspaceView(workspace), role: 'owner' });
    },
  );
}
