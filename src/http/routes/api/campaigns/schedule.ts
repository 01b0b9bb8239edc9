import { campaignEtag } from '../../../../core/campaigns.js';
import { scheduleCampaign } from '../../../../services/campaigns/campaigns.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import { campaignSchema } from '../../../../contract/campaigns.js';
import {
  campaignParams,
  ifMatchHeaders,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/**
 * POST /api/v1/workspaces/{id}/campaigns/{campaign_id}/schedule: hands a draft over for delivery (owners,
 * admins and workspace API keys). From then on it no longer changes.
 */
export function scheduleCampaignRoute(app: ZodApp): void {
  app.post(
    '/:campaign_id/schedule',
    {
      config: { permission: 'campaigns.schedule' },
      schema: {
        tags: ['campaigns'],
        operationId: 'scheduleCampaign',
        summary: 'Schedule a campaign draft',
        security: MANAGEMENT_SECURITY,
        params: campaignParams,
        headers: ifMatchHeaders,
        response: withProblems({ 200: jsonResponse('The campaign, now scheduled', campaignSchema) }, [
          ...managementProblems('write', 'campaigns.schedule'),
          'campaign_not_found',
          'campaign_not_draft',
          'version_mismatch',
        ]),
      },
    },
    async (request, reply) => {
      const campaign = await scheduleCampaign(app.services.deps, actorOf(request), {
        workspaceId: request.params.id,
        id: request.params.campaign_id,
        ifMatch: request.headers['if-match'],
      });
      return reply.header('etag', campaignEtag(campaign.version)).send(campaign);
    },
  );
}
