import { z } from 'zod';
import { revokeGrant } from '../../../../services/oauth/grants.js';
import { actorOf, membershipOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { MANAGEMENT_SECURITY, managementProblems, withProblems, workspaceParams } from '../../../schemas.js';

/**
 * DELETE /api/v1/workspaces/{id}/oauth-grants/{grant_id}: disconnects an app. Its tokens are refused from the
 * next request on (docs/oauth.md "Grants").
 */
export function revokeOAuthGrantRoute(app: ZodApp): void {
  app.delete(
    '/:grant_id',
    {
      config: { permission: 'oauth_grants.revoke' },
      schema: {
        tags: ['oauth'],
        operationId: 'revokeOauthGrant',
        summary: 'Disconnect an app (revoke an OAuth grant)',
        description: 'Owners and admins revoke any connected app of the workspace; a member their own.',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams.extend({
          grant_id: z.string().min(1).max(128).describe('Grant id (og_…)'),
        }),
        response: withProblems({ 204: z.null().describe('Revoked') }, [
          ...managementProblems('write', 'oauth_grants.revoke'),
          'oauth_grant_not_found',
          'insufficient_role',
        ]),
      },
    },
    async (request, reply) => {
      await revokeGrant(app.services.deps, actorOf(request), membershipOf(request), request.params.grant_id);
      return reply.code(204).send(null);
    },
  );
}
