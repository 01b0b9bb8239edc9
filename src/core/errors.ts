/**
 * Every error a client can see, with its HTTP status and the advice it carries. The 401/403/404 resolutions
 * are the specification's own words (section 7); the rest follow its tone.
 */
const SPEC_401 = 'Revoke the key and create a replacement in Settings → Agent Access.';
const API_KEY_REPLACE =
  'Create a workspace API key in Settings → Agent Access (POST /api/v1/workspaces/{id}/api-keys), then revoke this one.';

interface ProblemDefinition {
  status: number;
  title: string;
  resolution: string;
}

export const PROBLEMS = {
  missing_key: {
    status: 401,
    title: 'Missing brand read key',
    resolution: `Send the key as "Authorization: Bearer <BRAND_READ_KEY>". ${SPEC_401}`,
  },
  malformed_key: {
    status: 401,
    title: 'Malformed brand read key',
    resolution: `Check that the whole key was copied (brk_ followed by 36 letters and digits). ${SPEC_401}`,
  },
  invalid_key: { status: 401, title: 'Invalid brand read key', resolution: SPEC_401 },
  key_expired: { status: 401, title: 'Brand read key expired', resolution: SPEC_401 },
  key_revoked: { status: 401, title: 'Brand read key revoked', resolution: SPEC_401 },
  missing_token: {
    status: 401,
    title: 'Missing access token',
    resolution:
      'Sign in with POST /auth/v1/token (or create a personal access token) and send it as "Authorization: Bearer <token>".',
  },
  invalid_token: {
    status: 401,
    title: 'Invalid access token',
    resolution: 'Sign in again with POST /auth/v1/token, or create a new personal access token.',
  },
  token_expired: {
    status: 401,
    title: 'Access token expired',
    resolution: 'Sign in again with POST /auth/v1/token, or create a new personal access token.',
  },
  token_revoked: {
    status: 401,
    title: 'Access token revoked',
    resolution: 'Create a new personal access token with POST /api/v1/tokens.',
  },
  invalid_credentials: {
    status: 401,
    title: 'Wrong email or password',
    resolution: 'Check the email and password. Repeated failures are throttled.',
  },
  rate_limited: {
    status: 429,
    title: 'Too many attempts',
    resolution: 'Wait for the number of seconds in the Retry-After header, then try again.',
  },
  sign_in_busy: {
    status: 503,
    title: 'Too many sign-ins at once',
    resolution:
      'The service checks only a few passwords at a time to bound its memory: wait for the number of seconds in the Retry-After header, then sign in again.',
  },
  brand_key_not_allowed: {
    status: 403,
    title: 'Brand read keys cannot call this route',
    resolution:
      'A brand read key only reads brand context (POST /functions/v1/brand-agent). Use a user access token here.',
  },
  api_key_invalid: {
    status: 401,
    title: 'Invalid workspace API key',
    resolution: `Check that the whole key was copied (wsk_ followed by 36 letters and digits). ${API_KEY_REPLACE}`,
  },
  api_key_expired: { status: 401, title: 'Workspace API key expired', resolution: API_KEY_REPLACE },
  api_key_revoked: { status: 401, title: 'Workspace API key revoked', resolution: API_KEY_REPLACE },
  api_key_not_allowed: {
    status: 403,
    title: 'Workspace API keys cannot call this route',
    resolution:
      'A workspace API key only reaches the campaign drafts of its workspace (/api/v1/workspaces/{id}/campaigns). Use a user access token here.',
  },
  csrf_failed: {
    status: 403,
    title: 'Missing or invalid CSRF token',
    resolution:
      'Writes made with the console session cookie must send the csrf_token of GET /auth/v1/session in the X-CSRF-Token header; scripts should use "Authorization: Bearer <token>" instead of the cookie.',
  },
  session_required: {
    status: 403,
    title: 'Sign in to do this',
    resolution:
      'Personal access tokens cannot create tokens: sign in with POST /auth/v1/token and use that token.',
  },
  insufficient_role: {
    status: 403,
    title: 'Your role does not allow this',
    resolution: 'Ask a workspace owner or admin to do it, or to change your role.',
  },
  workspace_forbidden: {
    status: 403,
    title: 'No access to this workspace',
    resolution: 'Confirm that the key was created within that workspace.',
  },
  workspace_not_found: {
    status: 404,
    title: 'Workspace not found',
    resolution: 'Check the workspace id in Settings → Agent Access.',
  },
  key_not_found: {
    status: 404,
    title: 'Brand read key not found',
    resolution: 'List the workspace keys to find the key id (brand-context keys list --workspace <id>).',
  },
  api_key_not_found: {
    status: 404,
    title: 'Workspace API key not found',
    resolution:
      'List the workspace API keys to find the key id (brand-context api-keys list --workspace <id>).',
  },
  campaign_not_found: {
    status: 404,
    title: 'Campaign not found',
    resolution: 'List the campaigns to find its id (GET /api/v1/workspaces/{id}/campaigns).',
  },
  member_not_found: {
    status: 404,
    title: 'Member not found',
    resolution: 'List the workspace members to find the user id (GET /api/v1/workspaces/{id}/members).',
  },
  token_not_found: {
    status: 404,
    title: 'Access token not found',
    resolution: 'List your personal access tokens to find the token id (GET /api/v1/tokens).',
  },
  member_exists: {
    status: 409,
    title: 'Already a member',
    resolution: 'Remove the member first to add them again with another role.',
  },
  account_has_password: {
    status: 409,
    title: 'The account already has a password',
    resolution:
      'Add the member without a temporary password: they sign in with the password they have. Only they (or an operator with brand-context users set-password) can change it.',
  },
  campaign_not_draft: {
    status: 409,
    title: 'Only drafts can change',
    resolution: 'This campaign is scheduled or sent; create a new draft instead.',
  },
  version_mismatch: {
    status: 412,
    title: 'The campaign changed since you read it',
    resolution:
      'Someone else changed it meanwhile: read the campaign again, reapply your edit to it, and send the new ETag in If-Match.',
  },
  last_owner: {
    status: 409,
    title: 'A workspace needs an owner',
    resolution: 'Add another owner before removing this one.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    resolution: 'Brand context is read with POST /functions/v1/brand-agent.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    resolution: 'Use the method named in the Allow header.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    resolution: 'Send a JSON body with "Content-Type: application/json".',
  },
  payload_too_large: {
    status: 413,
    title: 'Request body too large',
    resolution:
      'Send a smaller body: the read operation takes only {"action":"context","workspace_id":"…"} (at most 16 KiB), a campaign draft at most 4 MiB.',
  },
  invalid_json: {
    status: 400,
    title: 'Body is not valid JSON',
    resolution: 'Send a JSON object such as {"action":"context","workspace_id":"ws_…"}.',
  },
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    resolution: 'Correct the fields named in the detail and send the request again.',
  },
  unsupported_action: {
    status: 400,
    title: 'Unsupported action',
    resolution: 'Set "action" to "context", the only action this operation supports.',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    resolution:
      'The service is restarting or cannot reach its database: try again shortly (after Retry-After seconds when given). Operators: if it persists, check DATABASE_URL and the database.',
  },
  bad_request: {
    status: 400,
    title: 'Malformed HTTP request',
    resolution:
      'Send a well-formed HTTP/1.1 request: a standard method (not CONNECT), a path with valid percent-encoding (%XX, UTF-8), a Host header, and either one Content-Length or Transfer-Encoding: chunked.',
  },
  request_timeout: {
    status: 408,
    title: 'Request not received in time',
    resolution:
      'Send the headers and the whole body without pausing, then try again on a new connection; very slow links may need the operator to raise HTTP_REQUEST_TIMEOUT.',
  },
  uri_too_long: {
    status: 414,
    title: 'URL too long',
    resolution: 'Check the ids in the path: none is longer than 100 characters.',
  },
  expectation_failed: {
    status: 417,
    title: 'Expectation not supported',
    resolution: 'Send no Expect header, or "Expect: 100-continue".',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    resolution: 'Send a shorter URL and fewer or shorter headers: together they may take at most 16 KiB.',
  },
  storage_full: {
    status: 507,
    title: 'Database storage full',
    resolution:
      'Nothing was saved; try again later. Operators: free disk space (or raise the quota) where the database keeps its files.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    resolution: 'Try again. If it persists, report the request_id to the service operator.',
  },
} as const satisfies Record<string, ProblemDefinition>;

export type ProblemCode = keyof typeof PROBLEMS;

export interface FieldIssue {
  /** Where the problem is, e.g. `knowledge[2].kind`; empty for the document itself. */
  field: string;
  message: string;
}

/** The one error type the service raises on purpose; the HTTP layer and the CLI render it. */
export class AppError extends Error {
  override readonly name = 'AppError';

  /**
   * @param headers response headers the error implies (`Allow`, `Retry-After`); the HTTP layer sends them.
   * @param advice the code's resolution, when this caller needs other advice than the table's.
   */
  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly fields: readonly FieldIssue[] = [],
    readonly headers: Readonly<Record<string, string>> = {},
    private readonly advice?: string,
  ) {
    super(detail);
  }

  get status(): number {
    return PROBLEMS[this.code].status;
  }

  get resolution(): string {
    return this.advice ?? PROBLEMS[this.code].resolution;
  }
}
