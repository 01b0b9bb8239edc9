import { listWorkspacesOf, toWorkspaceView } from '../../../../services/accounts/workspaces.js';
import { userPrincipalOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { workspaceListSchema } from '../../../../contract/workspaces.js';
import { jsonResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';

/** GET /api/v1/workspaces: the caller's workspaces and their role in each. */
export function listWorkspacesRoute(app: ZodApp): void {
  app.get(
    '',
    {
      schema: {
        tags: ['workspaces'],
        operationId: 'listWorkspaces',
        summary: 'List my workspaces',
        security: MANAGEMENT_SECURITY,
        response: withProblems(
          {
            200: jsonResponse('My workspaces and my role in each', workspaceListSchema),
          },
          managementProblems('read'),
        ),
      },
    },
    async (request) => {
      const workspaces = await listWorkspacesOf(app.services.deps, userPrincipalOf(request).user.id);
      return {
        workspaces: workspaces.map((w) => ({ ...toWorkspaceView(w), role: w.role })),
      };
    },
  );
}
