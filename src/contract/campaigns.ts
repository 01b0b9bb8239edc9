import { z } from 'zod';
import { nameSchema, singleLine } from '../core/inputs.js';

/**
 * Campaign drafts (docs/campaigns.md "Campaign drafts"): what an author may write, and how much, and how a campaign is
 * shown. Limits are generous for real email (inbox clients clip far earlier) yet keep one campaign well under
 * a few megabytes. The content fields are defined once, here: the API's bodies and answers, the services,
 * the MCP tools and the console derive their lists of fields from `CAMPAIGN_CONTENT_FIELDS`.
 */
export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'sent'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CAMPAIGN_LIMITS = {
  subject: 255,
  preheader: 255,
  bodyHtml: 512 * 1024,
  bodyText: 256 * 1024,
} as const;

/** Room for both bodies at their limits, even with every character escaped in JSON. */
export const CAMPAIGN_BODY_LIMIT = 4 * 1024 * 1024;

function text(max: number) {
  return z.string().max(max, `must be at most ${String(max)} characters`);
}

/** Subjects and preheaders become mail headers: a line break would let a caller inject headers. */
function oneLine(max: number) {
  return singleLine(text(max));
}

/** Each field's description also describes it in answers: the API reference and the MCP tools read it. */
const contentSchema = z.strictObject({
  name: nameSchema.describe('Internal name of the campaign.'),
  subject: oneLine(CAMPAIGN_LIMITS.subject).describe('Email subject line.'),
  preheader: oneLine(CAMPAIGN_LIMITS.preheader).describe('Preview text shown after the subject in inboxes.'),
  body_html: text(CAMPAIGN_LIMITS.bodyHtml).describe('HTML body of the email.'),
  body_text: text(CAMPAIGN_LIMITS.bodyText).describe('Plain-text body of the email.'),
});

/** What an author writes, in the documented order. */
export const CAMPAIGN_CONTENT_FIELDS = contentSchema.keyof().options;
export type CampaignContentField = (typeof CAMPAIGN_CONTENT_FIELDS)[number];

/** One schema per content field, made from the field's own by `make`. */
function eachContentField<S extends z.ZodType>(
  make: (field: z.ZodString) => S,
): Record<CampaignContentField, S> {
  return Object.fromEntries(
    CAMPAIGN_CONTENT_FIELDS.map((field) => [field, make(contentSchema.shape[field])]),
  ) as Record<CampaignContentField, S>;
}

/** A new draft: a name, and whatever else is known yet. */
export const newCampaignSchema = z.strictObject({
  ...eachContentField((field) => field.default('')),
  name: contentSchema.shape.name.describe('Internal name, e.g. "November newsletter"'),
});

/** An edit of a draft: only the fields it names change. */
export const campaignChangesSchema = contentSchema
  .partial()
  .refine((changes) => Object.keys(changes).length > 0, {
    error: `must name at least one of ${CAMPAIGN_CONTENT_FIELDS.join(', ')}`,
    // An unknown field is the whole story; "name at least one" on top of it would only confuse.
    when: (payload) => payload.issues.length === 0,
  });

export type NewCampaign = z.output<typeof newCampaignSchema>;
export type CampaignChanges = z.output<typeof campaignChangesSchema>;

/** What an author wrote, as a campaign shows it: the content fields alone, whatever else the value holds. */
export const campaignContentSchema = z.object(
  eachContentField((field) => z.string().meta({ description: field.description })),
);
export type CampaignContent = z.output<typeof campaignContentSchema>;

/** A campaign as the API shows it, with the version its ETag names. */
export const campaignSchema = z
  .object({
    id: z.string().describe('cmp_…'),
    workspace_id: z.string(),
    ...campaignContentSchema.shape,
    status: z.enum(CAMPAIGN_STATUSES).describe('Only drafts change'),
    version: z.number().int().describe('+1 on every change; the ETag is this number in quotes'),
    brand_version: z
      .number()
      .int()
      .nullable()
      .describe(
        'The version of the published brand when the draft was created or last changed; null for drafts older than brand versions',
      ),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'Campaign' });
export type Campaign = z.output<typeof campaignSchema>;

/** Listings leave the bodies out: a page of them could run to megabytes, and most callers want one. */
export const campaignSummarySchema = campaignSchema
  .omit({ body_html: true, body_text: true })
  .meta({ id: 'CampaignSummary', description: 'A campaign without its bodies, as listings show it' });
export type CampaignSummary = z.output<typeof campaignSummarySchema>;

export const campaignPageSchema = z.object({
  campaigns: z.array(campaignSummarySchema),
  /** Pass back as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
});
export type CampaignPage = z.output<typeof campaignPageSchema>;
