import { z } from 'zod';
import { brandContextSchema } from '../core/brand-context.js';
import { CAMPAIGN_STATUSES } from '../core/campaigns.js';

/**
 * What the service answers, as the MCP server advertises it (tool output schemas) and checks it: every
 * response is parsed with these before it becomes `structuredContent`, so what a client receives always
 * matches the advertised schema (unknown fields are dropped rather than failing the client's validation).
 */

/** The service's own schema of the brand context object (README "The brand context object"), so the two cannot drift apart. */
export const brandContextOutput = brandContextSchema;

/** With `fields`, only the asked sections are present; the identifying fields always are. */
export const brandContextToolOutput = brandContextSchema
  .partial()
  .required({ workspace_id: true, updated_at: true, version: true })
  .describe(
    'The brand context of a workspace. Without `fields` every section is present (empty values are "", [], {} or null, never missing); with `fields` only the asked sections, plus workspace_id, updated_at and version.',
  );

const campaignSummaryShape = {
  id: z.string().describe('Campaign id (cmp_…).'),
  workspace_id: z.string(),
  name: z.string().describe('Internal name of the campaign.'),
  subject: z.string().describe('Email subject line.'),
  preheader: z.string().describe('Preview text shown after the subject in inboxes.'),
  status: z.enum(CAMPAIGN_STATUSES).describe('Only drafts can be changed.'),
  version: z
    .number()
    .int()
    .min(1)
    .describe('Increases with every change; pass it to update_campaign_draft as `version`.'),
  created_at: z.string(),
  updated_at: z.string(),
};

export const campaignSummarySchema = z.object(campaignSummaryShape);

export const campaignSchema = z
  .object({
    ...campaignSummaryShape,
    body_html: z.string().describe('HTML body of the email.'),
    body_text: z.string().describe('Plain-text body of the email.'),
  })
  .describe('A campaign (email) of the workspace.');

export const campaignListSchema = z
  .object({
    campaigns: z.array(campaignSummarySchema).describe('Newest first; bodies are left out.'),
    next_cursor: z
      .string()
      .nullable()
      .describe('Pass as `cursor` to get the next page; null on the last page.'),
  })
  .describe('One page of the workspace campaigns.');

export const workspaceListSchema = z.object({
  workspaces: z.array(z.object({ id: z.string(), name: z.string(), role: z.string() })),
});

/** RFC 9457 problem+json of the service (README "Errors"); tolerant, since only its text reaches the model. */
export const problemSchema = z.object({
  status: z.number().optional(),
  code: z.string(),
  title: z.string().optional(),
  detail: z.string().optional(),
  resolution: z.string().optional(),
  request_id: z.string().optional(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export type BrandContextOutput = z.output<typeof brandContextOutput>;
export type Campaign = z.output<typeof campaignSchema>;
export type CampaignList = z.output<typeof campaignListSchema>;
export type Problem = z.output<typeof problemSchema>;
