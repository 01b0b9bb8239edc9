/**
 * Every error a client can see, with its HTTP status and the advice it carries. The 401/403/404 resolutions
 * are the specification's own words (section 7); the rest follow its tone.
 */
const SPEC_401 = 'Revoke the key and create a replacement in Settings → Agent Access.';

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
  workspace_forbidden: {
    status: 403,
    title: 'Key has no access to this workspace',
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
    resolution: 'Send only {"action":"context","workspace_id":"…"}; the body may not exceed 16 KiB.',
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
      'The database cannot be reached; try again shortly. Operators: check DATABASE_URL and the database.',
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

  constructor(
    readonly code: ProblemCode,
    readonly detail: string,
    readonly fields: readonly FieldIssue[] = [],
  ) {
    super(detail);
  }

  get status(): number {
    return PROBLEMS[this.code].status;
  }

  get resolution(): string {
    return PROBLEMS[this.code].resolution;
  }
}
