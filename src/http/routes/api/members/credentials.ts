import { z } from 'zod';
import { memberCredentialsSchema } from '../../../../contract/members.js';
import { listMemberCredentials } from '../../../../services/accounts/members.js';
import { membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/**
 * GET /api/v1/workspaces/{id}/members/{user_id}/credentials: what the member created that still works, which
 * removing them with revoke_credentials would end. Asked before a removal, so it takes what removing takes.
 */
export function memberCredentialsRoute(app: ZodApp): void {
  app.get(
    '/:user_id/credentials',
    {
      config: { permission: 'members.write' },
      schema: {
        tags: ['members'],
        operationId: 'listMemberCredentials',
        summary: 'List what a member created that still works',
        description:
          'Their active brand read keys and workspace API keys and their enabled webhook endpoints: what DELETE …/members/{user_id}?revoke_credentials=true revokes and disables.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams.extend({ user_id: z.string().max(128) }),
        response: withProblems(
          { 200: jsonResponse('The member’s live credentials', memberCredentialsSchema) },
          [...managementProblems('read', 'members.write'), 'member_not_found'],
        ),
      },
    },
    (request) =>
      listMemberCredentials(
        app.services.deps,
        membershipOf(request).role,
        request.params.id,
        request.params.user_id,
      ),
  );
}
