import { z } from 'zod';
import { CAMPAIGN_STATUSES } from '../../../../core/campaigns.js';
import { listCampaigns } from '../../../../services/campaigns.js';
import type { AppContext, ZodApp } from '../../../context.js';
import {
  campaignSummarySchema,
  jsonResponse,
  MANAGEMENT_SECURITY,
  managementProblems,
  withProblems,
  workspaceParams,
} from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/campaigns: newest first, without bodies, with a cursor for the next page. */
export function listCampaignsRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/campaigns',
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
              z.object({ campaigns: z.array(campaignSummarySchema), next_cursor: z.string().nullable() }),
            ),
          },
          managementProblems('read', 'campaigns.read'),
        ),
      },
    },
    (request) => listCampaigns(ctx.deps, request.params.id, request.query),
  );
}
