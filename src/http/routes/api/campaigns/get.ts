import { campaignEtag } from '../../../../core/campaigns.js';
import { getCampaign } from '../../../../services/campaigns/campaigns.js';
import type { ZodApp } from '../../../context.js';
import { campaignSchema } from '../../../../contract/campaigns.js';
import {
  campaignParams,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/campaigns/{campaign_id}, with the ETag to send back in If-Match. */
export function getCampaignRoute(app: ZodApp): void {
  app.get(
    '/:campaign_id',
    {
      config: { permission: 'campaigns.read' },
      schema: {
        tags: ['campaigns'],
        operationId: 'getCampaign',
        summary: 'Get a campaign',
        security: MANAGEMENT_SECURITY,
        params: campaignParams,
        response: withProblems(
          { 200: jsonResponse('The campaign, with the ETag to send back in If-Match', campaignSchema) },
          [...managementProblems('read', 'campaigns.read'), 'campaign_not_found'],
        ),
      },
    },
    async (request, reply) => {
      const campaign = await getCampaign(app.services.deps, request.params.id, request.params.campaign_id);
      return reply
        .header('etag', campaignEtag(campaign.version))
        .header('cache-control', 'private, no-cache')
        .send(campaign);
    },
  );
}
