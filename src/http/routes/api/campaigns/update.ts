import { campaignEtag } from '../../../../core/campaigns.js';
import { updateCampaign } from '../../../../services/campaigns/campaigns.js';
import { actorOf } from '../../../auth.js';
import type { ZodApp } from '../../../context.js';
import {
  CAMPAIGN_BODY_LIMIT,
  campaignChangesSchema,
  campaignSchema,
} from '../../../../contract/campaigns.js';
import {
  campaignParams,
  ifMatchHeaders,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/**
 * PATCH /api/v1/workspaces/{id}/campaigns/{campaign_id}: edits a draft (409 for anything else). With
 * If-Match, an edit based on a version someone has changed since answers 412 instead of overwriting it.
 */
export function updateCampaignRoute(app: ZodApp): void {
  app.patch(
    '/:campaign_id',
    {
      config: { permission: 'campaigns.write' },
      bodyLimit: CAMPAIGN_BODY_LIMIT,
      schema: {
        tags: ['campaigns'],
        operationId: 'updateCampaignDraft',
        summary: 'Edit a campaign draft',
        security: MANAGEMENT_SECURITY,
        params: campaignParams,
        headers: ifMatchHeaders,
        body: campaignChangesSchema,
        response: withProblems(
          { 200: jsonResponse('The draft with the edit applied, at its next version', campaignSchema) },
          [
            ...managementProblems('write', 'campaigns.write'),
            'campaign_not_found',
            'campaign_not_draft',
            'version_mismatch',
          ],
        ),
      },
    },
    async (request, reply) => {
      const campaign = await updateCampaign(
        app.services.deps,
        actorOf(request),
        {
          workspaceId: request.params.id,
          id: request.params.campaign_id,
          ifMatch: request.headers['if-match'],
        },
        request.body,
      );
      return reply.header('etag', campaignEtag(campaign.version)).send(campaign);
    },
  );
}
