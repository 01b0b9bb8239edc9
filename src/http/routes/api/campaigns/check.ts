import { brandCheckResultSchema } from '../../../../contract/brand-check.js';
import { checkCampaign } from '../../../../services/brand/check.js';
import type { ZodApp } from '../../../context.js';
import {
  campaignParams,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
} from '../../../schemas.js';

/**
 * GET /api/v1/workspaces/{id}/campaigns/{campaign_id}/check: the campaign's subject, text and HTML checked
 * against the published brand (docs/brand-check.md), as POST /functions/v1/brand-check answers. Nothing is stored.
 */
export function checkCampaignRoute(app: ZodApp): void {
  app.get(
    '/:campaign_id/check',
    {
      config: { permission: 'campaigns.read' },
      schema: {
        tags: ['campaigns'],
        operationId: 'checkCampaign',
        summary: 'Check a campaign against the brand',
        description:
          "The campaign's subject, body_text and body_html checked against the workspace's published brand rules, with the same answer as POST /functions/v1/brand-check (its `version` is the brand version checked against). Nothing is stored.",
        security: MANAGEMENT_SECURITY,
        params: campaignParams,
        response: withProblems(
          {
            200: jsonResponse(
              'The findings; `passed` when none is an error. `Cache-Control: no-store`.',
              brandCheckResultSchema,
            ),
          },
          [...managementProblems('read', 'campaigns.read'), 'campaign_not_found'],
        ),
      },
    },
    async (request, reply) => {
      const { id, campaign_id: campaignId } = request.params;
      const result = await checkCampaign(app.services.deps, app.services.reader, id, campaignId);
      return reply.header('cache-control', 'no-store').send(result);
    },
  );
}
