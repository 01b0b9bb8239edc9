import { oauthGrantListSchema } from '../../../../contract/oauth-consent.js';
import { listGrants } from '../../../../services/oauth/grants.js';
import { membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/oauth-grants: connected apps; owners and admins see all, a member their own. */
export function listOAuthGrantsRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'oauth_grants.read' },
      schema: {
        tags: ['oauth'],
        operationId: 'listOauthGrants',
        summary: 'List connected apps (OAuth grants)',
        description:
          'Apps (MCP clients) members connected to the workspace with OAuth, newest first. Owners and admins see every member’s; a member sees their own.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        response: withProblems(
          { 200: jsonResponse('The connected apps not revoked', oauthGrantListSchema) },
          managementProblems('read', 'oauth_grants.read'),
        ),
      },
    },
    async (request) => ({ grants: await listGrants(app.services.deps, membershipOf(request)) }),
  );
}
