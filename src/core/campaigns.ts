import { z } from 'zod';
import { nameSchema } from './inputs.js';

/**
 * Campaign drafts (README "Campaign drafts"): what an author may write, and how much. Limits are generous for real
 * email (inbox clients clip far earlier) yet keep one campaign well under a few megabytes.
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
  return z.string({ error: 'must be a string' }).max(max, `must be at most ${String(max)} characters`);
}

/** Subjects and preheaders become mail headers: a line break would let a caller inject headers. */
function singleLine(max: number) {
  return text(max).regex(/^[^\r\n]*$/, 'must be a single line');
}

const contentFields = {
  name: nameSchema,
  subject: singleLine(CAMPAIGN_LIMITS.subject).describe('Email subject line'),
  preheader: singleLine(CAMPAIGN_LIMITS.preheader).describe('Preview text shown after the subject'),
  body_html: text(CAMPAIGN_LIMITS.bodyHtml).describe('HTML body'),
  body_text: text(CAMPAIGN_LIMITS.bodyText).describe('Plain-text body'),
};

/** A new draft: a name, and whatever else is known yet. */
export const newCampaignSchema = z.strictObject({
  name: contentFields.name.describe('Internal name, e.g. "November newsletter"'),
  subject: contentFields.subject.default(''),
  preheader: contentFields.preheader.default(''),
  body_html: contentFields.body_html.default(''),
  body_text: contentFields.body_text.default(''),
});

/** An edit of a draft: only the fields it names change. */
export const campaignChangesSchema = z
  .strictObject({
    name: contentFields.name.optional(),
    subject: contentFields.subject.optional(),
    preheader: contentFields.preheader.optional(),
    body_html: contentFields.body_html.optional(),
    body_text: contentFields.body_text.optional(),
  })
  .refine((changes) => Object.keys(changes).length > 0, {
    error: 'must name at least one of name, subject, preheader, body_html, body_text',
    // An unknown field is the whole story; "name at least one" on top of it would only confuse.
    when: (payload) => payload.issues.length === 0,
  });

export type NewCampaign = z.output<typeof newCampaignSchema>;
export type CampaignChanges = z.output<typeof campaignChangesSchema>;

/** The ETag of a campaign version: strong, since a version has exactly one representation. */
export function campaignEtag(version: number): string {
  return `"${String(version)}"`;
}

/**
 * Whether an `If-Match` header lets a change to `version` go ahead: no header or `*` always does. Weak
 * tags are compared as strong ones, since proxies that compress a response weaken its ETag.
 */
export function ifMatchAllows(header: string | undefined, version: number): boolean {
  if (header === undefined) return true;
  return header
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === campaignEtag(version));
}
