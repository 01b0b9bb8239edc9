import { campaignEtag } from '../../../../core/campaigns.js';
import { createCampaign } from '../../../../services/campaigns/campaigns.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { CAMPAIGN_BODY_LIMIT, campaignSchema, newCampaignSchema } from '../../../../contract/campaigns.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** POST /api/v1/workspaces/{id}/campaigns: a new campaign is always a draft. */
export function createCampaignRoute(app: ZodApp): void {
  app.post(
    '',
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
          [...managementProblems('write', 'campaigns.write')],
        ),
      },
    },
    async (request, reply) => {
      const campaign = await createCampaign(
        app.services.deps,
        actorOf(request),
        request.params.id,
        request.body,
      );
      return reply
        .code(201)
        .header('location', `/api/v1/workspaces/${campaign.workspace_id}/campaigns/${campaign.id}`)
        .header('etag', campaignEtag(campaign.version))
        .send(campaign);
    },
  );
}
