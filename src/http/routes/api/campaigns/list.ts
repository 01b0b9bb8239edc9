import { z } from 'zod';
import { CAMPAIGN_STATUSES } from '../../../../core/campaigns.js';
import { listCampaigns } from '../../../../services/campaigns.js';
import type { AppContext, ZodApp } from '../../../context.js';
import { campaignSummarySchema, withProblems, workspaceParams } from '../../../schemas.js';

/** GET /api/v1/workspaces/{id}/campaigns: newest first, without bodies, with a cursor for the next page. */
export function listCampaignsRoute(app: ZodApp, ctx: AppContext): void {
  app.get(
    '/api/v1/workspaces/:id/campaigns',
    {
      config: { permission: 'campaigns.read' },
      schema: {
        tags: ['campaigns'],
        summary: 'List campaigns',
        params: workspaceParams,
        querystring: z.strictObject({
          limit: z.coerce.number().int().min(1).max(100).default(20),
          cursor: z.string().max(512).optional().describe('next_cursor of the previous page'),
          status: z.enum(CAMPAIGN_STATUSES).optional(),
        }),
        response: withProblems({
          200: z.object({ campaigns: z.array(campaignSummarySchema), next_cursor: z.string().nullable() }),
        }),
      },
    },
    (request) => listCampaigns(ctx.deps, request.params.id, request.query),
  );
}
