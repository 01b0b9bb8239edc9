import { workspaceDetailsSchema, workspaceUpdateSchema } from '../../../../contract/workspaces.js';
import { toWorkspaceDetailsView, updateWorkspace } from '../../../../services/accounts/workspaces.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * PATCH /api/v1/workspaces/{id}: renames the workspace (a new version of the brand, whose name it is) or
 * turns brand review on or off (docs/brand-versions.md "Review"). Owners and admins.
 */
export function updateWorkspaceRoute(app: ZodApp): void {
  app.patch(
    '',
    {
      config: { permission: 'workspace.write' },
      schema: {
        tags: ['workspaces'],
        operationId: 'updateWorkspace',
        summary: 'Change a workspace',
        description:
          'Only the fields sent change. A new name is also the brand’s: it makes a new version of the brand (with review on too) and sends `brand.updated`. `brand_review: "off"` while a draft waits answers 409 `draft_pending`: publish or discard it first.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        body: workspaceUpdateSchema,
        response: withProblems({ 200: jsonResponse('The workspace as it is now', workspaceDetailsSchema) }, [
          ...managementProblems('write', 'workspace.write'),
          'draft_pending',
        ]),
      },
    },
    async (request) => {
      const workspace = await updateWorkspace(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.body,
      );
      return { ...toWorkspaceDetailsView(workspace), role: membershipOf(request).role };
    },
  );
}
