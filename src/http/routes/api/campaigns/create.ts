import { CAMPAIGN_BODY_LIMIT, campaignEtag, newCampaignSchema } from '../../../../core/campaigns.js';
import { createCampaign } from '../../../../services/campaigns.js';
import { actorOf } from '../../../auth.js';
import type { AppContext, ZodApp } from '../../../context.js';
import {
  BODY_PROBLEMS,
  campaignSchema,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/campaigns: a new campaign is always a draft. */
export function createCampaignRoute(app: ZodApp, ctx: AppContext): void {
  app.post(
    '/api/v1/workspaces/:id/campaigns',
    {
      config: { permission: 'campaigns.write' },
      bodyLimit: CAMPAIGN_BODY_LIMIT,
      schema: {
        tags: ['campaigns'],
        operationId: 'createCampaignDraft',
        summary: 'Create a campaign draft',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        body: newCampaignSchema,
        response: withProblems(
          { 201: jsonResponse('The new draft (version 1), with its Location and ETag', campaignSchema) },
          [...managementProblems('write', 'campaigns.write'), ...BODY_PROBLEMS],
        ),
      },
    },
    async (request, reply) => {
      const campaign = await createCampaign(ctx.deps, actorOf(request), request.params.id, request.body);
      return reply
        .code(201)
        .header('location', `/api/v1/workspaces/${campaign.workspace_id}/campaigns/${campaign.id}`)
        .header('etag', campaignEtag(campaign.version))
        .send(campaign);
    },
  );
}
