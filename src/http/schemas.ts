import { z } from 'zod';
import { problemSchema } from '../contract/problem.js';
import { PROBLEMS, type ProblemCode } from '../core/errors.js';
import { API_KEY_PERMISSIONS, can, type Permission } from '../core/roles.js';
import { PROBLEM_CONTENT_TYPE } from './problem.js';

/*
 * How routes describe their requests and responses for validation and /openapi.json. The shapes of the
 * resources themselves are the contract's (src/contract/): routes import them from there.
 */

/** A success response with a JSON body, described for the API reference. */
export function jsonResponse<S extends z.ZodType>(description: string, schema: S) {
  return { description, content: { 'application/json': { schema } } };
}

/** A success response with an HTML body, described for the API reference. */
export function htmlResponse(description: string) {
  return { description, content: { 'text/html': { schema: z.string() } } };
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
export function withProblems<
  T extends Record<number, z.ZodType | ReturnType<typeof jsonResponse> | ReturnType<typeof htmlResponse>>,
>(success: T, problems: readonly ProblemCode[]): T & Record<ProblemStatus, ProblemResponse> {
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

/** The management API takes a bearer token or the console's session cookie (docs/console.md "Console"). */
export const MANAGEMENT_SECURITY: Record<string, string[]>[] = [{ bearer: [] }, { sessionCookie: [] }];

/**
 * Problems every management route answers before it runs (docs/management-api.md "Management API"): the credential; any
 * input with a NUL character; a write made with the session cookie but no CSRF token; a workspace API key
 * outside the campaign routes, and a transactional email key anywhere; and on a workspace's routes (those
 * with a `permission`), the workspace and the caller's role in it. A write also fails, saving nothing, when
 * the database's disk is full, and on a body that is not JSON or too large: a write's body is read even
 * where the route takes none.
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
    'email_key_not_allowed',
    'invalid_request',
  ];
  if (access === 'write') problems.push('csrf_failed', 'storage_full', ...BODY_PROBLEMS);
  if (permission === undefined || !API_KEY_PERMISSIONS.includes(permission))
    problems.push('api_key_not_allowed');
  if (permission !== undefined) problems.push('workspace_not_found', 'workspace_forbidden');
  if (permission !== undefined && !can('member', permission)) problems.push('insufficient_role');
  return problems;
}

export const workspaceParams = z.object({ id: z.string().min(1).max(128).describe('Workspace id (ws_…)') });

export const campaignParams = workspaceParams.extend({
  campaign_id: z.string().min(1).max(128).describe('Campaign id (cmp_…)'),
});

export const webhookParams = workspaceParams.extend({
  webhook_id: z.string().min(1).max(128).describe('Webhook endpoint id (wh_…)'),
});

export const deliveryParams = webhookParams.extend({
  delivery_id: z.string().min(1).max(128).describe('Delivery id (dlv_…)'),
});

/** `If-Match` for the optimistic concurrency of campaign and brand edits. */
export const ifMatchHeaders = z.object({
  'if-match': z
    .string()
    .max(1024)
    .optional()
    .describe('The ETag of the version the change is based on: a stale one answers 412'),
});

/** The `ETag` header of a versioned resource's answers, as the API reference describes it. */
export const VERSION_ETAG_HEADER = {
  ETag: {
    type: 'string',
    description:
      'The version this answer shows, quoted (strong): send it as If-Match with a change to have it refused with 412 if someone else changed the resource meanwhile.',
  },
};

/** The headers of an answer holding the brand at one version (docs/brand-versions.md): its ETag, and the version itself. */
export const BRAND_VERSION_HEADERS = {
  ...VERSION_ETAG_HEADER,
  'Brand-Version': { type: 'integer', description: 'The version of the brand this answer shows' },
};
