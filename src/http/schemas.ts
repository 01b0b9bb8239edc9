import { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../core/errors.js';
import { CAMPAIGN_STATUSES } from '../core/campaigns.js';
import { ROLES } from '../core/roles.js';

/** Response shapes of the API: they validate what routes send and generate /openapi.json. */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    code: z.enum(Object.keys(PROBLEMS) as [ProblemCode, ...ProblemCode[]]),
    detail: z.string(),
    resolution: z.string(),
    request_id: z.string(),
    errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

/** Adds the problem responses every route can give to its success responses. */
export function withProblems<T extends Record<number, z.ZodType>>(success: T) {
  return { ...success, '4xx': problemSchema, '5xx': problemSchema };
}

export const workspaceParams = z.object({ id: z.string().min(1).max(128).describe('Workspace id (ws_…)') });

export const workspaceSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string(), role: z.enum(ROLES) })
  .meta({ id: 'Workspace' });

function keySchema(id: string, prefix: string) {
  return z
    .object({
      id: z.string(),
      workspace_id: z.string(),
      name: z.string(),
      prefix: z.string().describe(`${prefix} and the first four random characters`),
      last4: z.string(),
      status: z.enum(['active', 'expired', 'revoked']),
      created_by: z.string().nullable(),
      created_at: z.string(),
      expires_at: z.string(),
      revoked_at: z.string().nullable(),
      last_used_at: z.string().nullable().describe('Accurate to 60 seconds'),
    })
    .meta({ id });
}

export const brandKeySchema = keySchema('BrandKey', 'brk_');
export const apiKeySchema = keySchema('ApiKey', 'wsk_');

export const createdKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    key: z.string().describe('The key itself: shown only in this response'),
    prefix: z.string(),
    created_at: z.string(),
    expires_at: z.string(),
  })
  .meta({ id: 'CreatedKey' });

export const memberSchema = z
  .object({ user_id: z.string(), email: z.string(), role: z.enum(ROLES), created_at: z.string() })
  .meta({ id: 'Member' });

export const addedMemberSchema = memberSchema
  .extend({
    temporary_password_set: z
      .boolean()
      .describe('True when the request’s temporary password was set on the account'),
  })
  .meta({ id: 'AddedMember' });

const detailValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
export const auditEventSchema = z
  .object({
    id: z.string(),
    action: z.string().describe('e.g. brand_key.created, brand_key.revoked, brand.updated, member.added'),
    actor: z.union([
      z.object({ type: z.literal('user'), id: z.string().nullable(), email: z.string().nullable() }),
      z.object({ type: z.literal('api_key'), id: z.string().nullable() }),
      z.object({ type: z.literal('operator') }),
    ]),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    details: z.record(z.string(), detailValue),
    created_at: z.string(),
  })
  .meta({ id: 'AuditEvent' });

export const accessTokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    status: z.enum(['active', 'expired', 'revoked']),
    created_at: z.string(),
    expires_at: z.string(),
    revoked_at: z.string().nullable(),
    last_used_at: z.string().nullable(),
  })
  .meta({ id: 'AccessToken' });

export const sessionSchema = z
  .object({ access_token: z.string(), token_type: z.literal('bearer'), expires_in: z.number().int() })
  .meta({ id: 'Session' });

const campaignFields = {
  id: z.string().describe('cmp_…'),
  workspace_id: z.string(),
  name: z.string(),
  subject: z.string(),
  preheader: z.string(),
  status: z.enum(CAMPAIGN_STATUSES).describe('Only drafts change'),
  version: z.number().int().describe('+1 on every change; the ETag is this number in quotes'),
  created_at: z.string(),
  updated_at: z.string(),
};

export const campaignSummarySchema = z.object(campaignFields).meta({
  id: 'CampaignSummary',
  description: 'A campaign without its bodies, as listings show it',
});

const { status, version, created_at, updated_at, ...campaignHead } = campaignFields;
export const campaignSchema = z
  .object({
    ...campaignHead,
    body_html: z.string(),
    body_text: z.string(),
    status,
    version,
    created_at,
    updated_at,
  })
  .meta({ id: 'Campaign' });

export const campaignParams = workspaceParams.extend({
  campaign_id: z.string().min(1).max(128).describe('Campaign id (cmp_…)'),
});

/** `If-Match` for the optimistic concurrency of campaign edits. */
export const ifMatchHeaders = z.object({
  'if-match': z
    .string()
    .max(1024)
    .optional()
    .describe('The ETag of the version the change is based on: a stale one answers 412'),
});
