import { z } from 'zod';
import { PROBLEMS, type ProblemCode } from '../core/errors.js';
import { CAMPAIGN_STATUSES } from '../core/campaigns.js';
import { API_KEY_PERMISSIONS, can, type Permission, ROLES } from '../core/roles.js';
import { PROBLEM_CONTENT_TYPE } from './problem.js';

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

/** A success response with a JSON body, described for the API reference. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { 'application/json': { schema } } };
}

type ProblemStatus = (typeof PROBLEMS)[ProblemCode]['status'];
interface ProblemResponse {
  description: string;
  content: Record<typeof PROBLEM_CONTENT_TYPE, { schema: typeof problemSchema }>;
}

/**
 * An operation's responses: its success responses, and one application/problem+json response per status
 * of the problems it answers, described by the codes it answers with that status. Any operation can also
 * fail with internal_error, and answers service_unavailable while the service shuts down or its database
 * is out of reach.
 */
export function withProblems<T extends Record<number, z.ZodType | ReturnType<typeof jsonResponse>>>(
  success: T,
  problems: readonly ProblemCode[],
): T & Record<ProblemStatus, ProblemResponse> {
  const codesByStatus = new Map<number, ProblemCode[]>();
  for (const code of new Set<ProblemCode>([...problems, 'internal_error', 'service_unavailable'])) {
    const { status } = PROBLEMS[code];
    codesByStatus.set(status, [...(codesByStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, ProblemResponse> = {};
  for (const [status, codes] of codesByStatus) {
    responses[status] = {
      description: codes.map((code) => `${PROBLEMS[code].title} (\`${code}\`)`).join('; '),
      content: { [PROBLEM_CONTENT_TYPE]: { schema: problemSchema } },
    };
  }
  // Typed as every problem status, as the 4xx/5xx ranges were: what a handler may send is its success.
  return { ...success, ...responses } as T & Record<ProblemStatus, ProblemResponse>;
}

/** Problems of a JSON request body: not JSON, too large, sent as another type, or with invalid fields. */
export const BODY_PROBLEMS = [
  'invalid_json',
  'invalid_request',
  'payload_too_large',
  'unsupported_media_type',
] as const satisfies readonly ProblemCode[];

/** The management API takes a bearer token or the console's session cookie (README "Console"). */
export const MANAGEMENT_SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { sessionCookie: [] }];

/**
 * Problems every management route answers before it runs (README "Management API"): the credential; any
 * input with a NUL character; a write made with the session cookie but no CSRF token; a workspace API key
 * outside the campaign routes; and on a workspace's routes (those with a `permission`), the workspace and
 * the caller's role in it. A write also fails, saving nothing, when the database's disk is full.
 */
export function managementProblems(access: 'read' | 'write', permission?: Permission): ProblemCode[] {
  const problems: ProblemCode[] = [
    'missing_token',
    'invalid_token',
    'token_expired',
    'token_revoked',
    'api_key_invalid',
    'api_key_expired',
    'api_key_revoked',
    'brand_key_not_allowed',
    'invalid_request',
  ];
  if (access === 'write') problems.push('csrf_failed', 'storage_full');
  if (permission === undefined || !API_KEY_PERMISSIONS.includes(permission))
    problems.push('api_key_not_allowed');
  if (permission !== undefined) problems.push('workspace_not_found', 'workspace_forbidden');
  if (permission !== undefined && !can('member', permission)) problems.push('insufficient_role');
  return problems;
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
