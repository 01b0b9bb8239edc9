import { z } from 'zod';
import { listCampaigns } from '../../../../services/campaigns/campaigns.js';
import type { ZodApp } from '../../../context.js';
import { CAMPAIGN_STATUSES, campaignPageSchema } from '../../../../contract/campaigns.js';
import {
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/campaigns: newest first, without bodies, with a cursor for the next page. */
export function listCampaignsRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'campaigns.read' },
      schema: {
        tags: ['campaigns'],
        operationId: 'listCampaigns',
        summary: 'List campaigns',
        security: MANAGEMENT_SECURITY,
        params: workspaceParams,
        querystring: z.strictObject({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          cursor: z.string().max(512).optional().describe('next_cursor of the previous page'),
          status: z.enum(CAMPAIGN_STATUSES).optional(),
        }),
        response: withProblems(
          {
            200: jsonResponse(
              'Campaigns, newest first, and the cursor of the next page (null on the last)',
              campaignPageSchema,
            ),
          },
          managementProblems('read', 'campaigns.read'),
        ),
      },
    },
    (request) => listCampaigns(app.services.deps, request.params.id, request.query),
  );
}
