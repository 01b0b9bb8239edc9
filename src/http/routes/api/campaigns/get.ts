import { campaignEtag } from '../../../../core/campaigns.js';
import { getCampaign } from '../../../../services/campaigns.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { campaignParams, campaignSchema, withProblems } from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/campaigns/{campaign_id}, with the ETag to send back in If-Match. */
export function getCampaignRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/campaigns/:campaign_id',
    {
      config: { permission: 'campaigns.read' },
      schema: {
        tags: ['campaigns'],
        summary: 'Get a campaign',
        params: campaignParams,
        response: withProblems({ 200: campaignSchema }),
      },
    },
    async (request, reply) => {
      const campaign = await getCampaign(ctx.deps, request.params.id, request.params.campaign_id);
      return reply
        .header('etag', campaignEtag(campaign.version))
        .header('cache-control', 'private, no-cache')
        .send(campaign);
    },
  );
}
