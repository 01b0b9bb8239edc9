import { z } from 'zod';
import { brandContextSchema } from '../contract/brand-context.js';
import {
  campaignSchema as serviceCampaignSchema,
  campaignPageSchema,
  campaignSummarySchema as serviceCampaignSummarySchema,
} from '../contract/campaigns.js';
import { problemSchema as serviceProblemSchema } from '../contract/problem.js';

/**
 * What the service answers, as the MCP server advertises it (tool output schemas) and checks it: every
 * response is parsed with these, or with the contract's schema where the MCP server adds nothing (the
 * brand context, the workspace list), before it becomes `structuredContent`, so what a client receives
 * always matches the advertised schema (unknown fields are dropped rather than failing the client's
 * validation). The shapes are the service's own (src/contract/), so the two cannot drift apart; only what a
 * model is told about them is added here.
 */

/** With `fields`, only the asked sections are present; the identifying fields always are. */
export const brandContextToolOutput = brandContextSchema
  .partial()
  .required({ workspace_id: true, updated_at: true, version: true })
  .describe(
    'The brand context of a workspace. Without `fields` every section is present (empty values are "", [], {} or null, never missing); with `fields` only the asked sections, plus workspace_id, updated_at and version.',
  );

/** What a model reads about a campaign: which id, and how to change it (only drafts, from the version it read). */
const campaignAdvice = {
  id: serviceCampaignSchema.shape.id.describe('Campaign id (cmp_…).'),
  status: serviceCampaignSchema.shape.status.describe('Only drafts can be changed.'),
  version: serviceCampaignSchema.shape.version
    .min(1)
    .describe('Increases with every change; pass it to update_campaign_draft as `version`.'),
};

export const campaignSchema = serviceCampaignSchema
  .extend(campaignAdvice)
  .describe('A campaign (email) of the workspace.');

export const campaignListSchema = campaignPageSchema
  .extend({
    campaigns: z
      .array(serviceCampaignSummarySchema.extend(campaignAdvice))
      .describe('Newest first; bodies are left out.'),
    next_cursor: campaignPageSchema.shape.next_cursor.describe(
      'Pass as `cursor` to get the next page; null on the last page.',
    ),
  })
  .describe('One page of the workspace campaigns.');

/**
 * RFC 9457 problem+json of the service (README "Errors"): tolerant of missing text, since only its text reaches
 * the model, but the code must be one of the service's (an answer with another is not the service's).
 */
export const problemSchema = serviceProblemSchema.partial().required({ code: true });

export type Campaign = z.output<typeof campaignSchema>;
export type CampaignList = z.output<typeof campaignListSchema>;
export type Problem = z.output<typeof problemSchema>;
