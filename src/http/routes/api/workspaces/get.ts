import { workspaceDetailsSchema } from '../../../../contract/workspaces.js';
import { requireWorkspace, toWorkspaceDetailsView } from '../../../../services/accounts/workspaces.js';
import { membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}: the workspace, its settings and the caller's role in it. */
export function getWorkspaceRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'workspace.read' },
      schema: {
        tags: ['workspaces'],
        operationId: 'getWorkspace',
        summary: 'Get a workspace',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          { 200: jsonResponse('The workspace, with my role in it', workspaceDetailsSchema) },
          managementProblems('read', 'workspace.read'),
        ),
      },
    },
    async (request) => {
      const workspace = await requireWorkspace(app.services.deps, request.params.id);
      return { ...toWorkspaceDetailsView(workspace), role: membershipOf(request).role };
    },
  );
}
