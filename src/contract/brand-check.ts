import { z } from 'zod';
import { RULE_KINDS, RULE_SEVERITIES } from '../core/brand-context.js';
import { CHECK_FIELDS } from '../core/brand-check.js';
import { brandVersionField } from './brand-views.js';
import { CAMPAIGN_LIMITS } from './campaigns.js';

/**
 * The on-brand check (docs/brand-check.md): what is checked, and what is found. The same shapes answer
 * `POST /functions/v1/brand-check`, `GET …/campaigns/{campaign_id}/check` and the MCP tool
 * `check_brand_compliance`. The fields' limits are a campaign's (src/contract/campaigns.ts): whatever a draft
 * may hold can be checked.
 */
function field(max: number, description: string) {
  return z
    .string()
    .max(max, `must be at most ${String(max)} characters`)
    .optional()
    .describe(description);
}

export const brandCheckContentSchema = z
  .strictObject({
    subject: field(CAMPAIGN_LIMITS.subject, 'An email subject line, or any one-line text'),
    text: field(CAMPAIGN_LIMITS.bodyText, 'Plain text'),
    html: field(
      CAMPAIGN_LIMITS.bodyHtml,
      'HTML: its visible text, alt and title are checked as text, its CSS colors and fonts against the brand',
    ),
  })
  .describe('The copy to check; offsets in findings are into these strings as sent')
  .meta({ id: 'BrandCheckContent' });

/** Room for every field at its limit, escaped in JSON, as a campaign's body has. */
export const BRAND_CHECK_BODY_LIMIT = 4 * 1024 * 1024;
const MAX_WORKSPACE_ID = 128;

export const brandCheckRequestSchema = z
  .strictObject({
    workspace_id: z
      .string()
      .min(1, 'must not be empty')
      .max(MAX_WORKSPACE_ID, `must be at most ${String(MAX_WORKSPACE_ID)} characters`),
    content: brandCheckContentSchema,
    ...brandVersionField,
  })
  .meta({ id: 'BrandCheckRequest' });
export type BrandCheckRequest = z.output<typeof brandCheckRequestSchema>;

export const brandCheckFindingSchema = z
  .object({
    rule_id: z.string().describe('The broken rule (rl_…)'),
    kind: z.enum(RULE_KINDS),
    severity: z.enum(RULE_SEVERITIES).describe('error fails the check; warning does not'),
    message: z.string().describe("The rule's message, or a default one"),
    excerpt: z
      .string()
      .describe('What broke the rule, decoded (HTML entities); "" for a missing required phrase'),
    field: z.enum(CHECK_FIELDS).nullable().describe('Where: null for a missing required phrase'),
    start: z
      .number()
      .int()
      .nullable()
      .describe('UTF-16 offset into the field as sent where the excerpt starts; null with field'),
    end: z.number().int().nullable().describe('UTF-16 offset where it ends (exclusive); null with field'),
  })
  .meta({ id: 'BrandCheckFinding' });

export const brandCheckResultSchema = z
  .object({
    passed: z.boolean().describe('No finding of severity error'),
    version: z.number().int().describe('The brand version checked against'),
    findings: z.array(brandCheckFindingSchema),
  })
  .meta({ id: 'BrandCheckResult' });
export type BrandCheckResult = z.output<typeof brandCheckResultSchema>;
