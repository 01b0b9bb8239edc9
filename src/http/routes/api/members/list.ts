import { listMembers } from '../../../../services/accounts/members.js';
import type { ZodApp } from '../../../context.js';
import { memberListSchema } from '../../../../contract/members.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/members */
export function listMembersRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'members.read' },
      schema: {
        tags: ['members'],
        operationId: 'listMembers',
        summary: 'List members',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          {
            200: jsonResponse("The workspace's members and their roles", memberListSchema),
          },
          managementProblems('read', 'members.read'),
        ),
      },
    },
    async (request) => ({ members: await listMembers(app.services.deps, request.params.id) }),
  );
}
