import type { z } from 'zod';
import type { ProblemCode } from '../core/errors.js';
import { type BrandContext, brandContextSchema } from '../contract/brand-context.js';
import type { CampaignContentField } from '../contract/campaigns.js';
import { workspaceListSchema } from '../contract/workspaces.js';
import type { McpConfig } from './config.js';
import {
  type Campaign,
  type CampaignList,
  campaignListSchema,
  campaignSchema,
  type Problem,
  problemSchema,
} from './schemas.js';

/** The MCP server's own failure codes, for what goes wrong before or around the service's answer. */
export type McpErrorCode =
  | 'missing_access_token'
  | 'no_workspace'
  | 'service_timeout'
  | 'service_unreachable'
  | 'unexpected_response'
  | 'workspace_required';

/** Why a call to the service failed; `code` is the service's problem code, or one of the MCP server's own. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';

  constructor(
    readonly code: ProblemCode | McpErrorCode,
    readonly detail: string,
    readonly resolution: string,
    readonly extra: { status?: number; fields?: Problem['errors']; requestId?: string } = {},
  ) {
    super(detail);
  }

  static fromProblem(problem: Problem, status: number): ServiceError {
    return new ServiceError(
      problem.code,
      problem.detail ?? problem.title ?? `The service answered ${status}.`,
      problem.resolution ?? '',
      { status, fields: problem.errors, requestId: problem.request_id },
    );
  }
}

/** The content fields a tool call names; the model may send the others as undefined. */
export type CampaignDraftFields = Partial<Record<CampaignContentField, string | undefined>>;

export interface ListCampaignsQuery {
  status?: string | undefined;
  limit?: number | undefined;
  cursor?: string | undefined;
}

type Credential = 'access' | 'brand';

interface RequestSpec<S extends z.ZodType> {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  credential: Credential;
  schema: S;
  body?: unknown;
  headers?: Record<string, string>;
}

const SNIPPET = 200;

/**
 * A small client of the service's HTTP API (README: the read operation, the management API, campaign drafts). Every failure — a problem+json answer,
 * an unreachable service, a timeout, an answer of an unexpected shape — becomes a ServiceError whose text
 * never contains a credential.
 */
export class ServiceClient {
  constructor(
    private readonly config: McpConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  get serviceUrl(): string {
    return this.config.serviceUrl;
  }

  /** POST /functions/v1/brand-agent with the brand read key when set, else the access token. */
  getBrandContext(workspaceId: string): Promise<BrandContext> {
    return this.request({
      method: 'POST',
      path: '/functions/v1/brand-agent',
      credential: 'brand',
      schema: brandContextSchema,
      body: { action: 'context', workspace_id: workspaceId },
    });
  }

  /** GET /api/v1/workspaces: the access token's user's workspaces. */
  async listWorkspaces(): Promise<z.output<typeof workspaceListSchema>['workspaces']> {
    const list = await this.request({
      method: 'GET',
      path: '/api/v1/workspaces',
      credential: 'access',
      schema: workspaceListSchema,
    });
    return list.workspaces;
  }

  listCampaigns(workspaceId: string, query: ListCampaignsQuery): Promise<CampaignList> {
    const params = new URLSearchParams();
    if (query.status !== undefined) params.set('status', query.status);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    const search = params.size > 0 ? `?${params.toString()}` : '';
    return this.request({
      method: 'GET',
      path: `${campaignsPath(workspaceId)}${search}`,
      credential: 'access',
      schema: campaignListSchema,
    });
  }

  getCampaign(workspaceId: string, campaignId: string): Promise<Campaign> {
    return this.request({
      method: 'GET',
      path: `${campaignsPath(workspaceId)}/${encodeURIComponent(campaignId)}`,
      credential: 'access',
      schema: campaignSchema,
    });
  }

  createCampaign(workspaceId: string, fields: CampaignDraftFields): Promise<Campaign> {
    return this.request({
      method: 'POST',
      path: campaignsPath(workspaceId),
      credential: 'access',
      schema: campaignSchema,
      body: definedOnly(fields),
    });
  }

  /** PATCH with `If-Match: "<version>"`: the service refuses (412) if the campaign changed meanwhile. */
  updateCampaign(
    workspaceId: string,
    campaignId: string,
    version: number,
    fields: CampaignDraftFields,
  ): Promise<Campaign> {
    return this.request({
      method: 'PATCH',
      path: `${campaignsPath(workspaceId)}/${encodeURIComponent(campaignId)}`,
      credential: 'access',
      schema: campaignSchema,
      body: definedOnly(fields),
      headers: { 'if-match': `"${String(version)}"` },
    });
  }

  private credential(kind: Credential): string {
    const token =
      kind === 'brand' ? (this.config.brandReadKey ?? this.config.accessToken) : this.config.accessToken;
    if (token === undefined) {
      throw new ServiceError(
        'missing_access_token',
        'This tool needs a user access token or workspace API key, and BRAND_CONTEXT_ACCESS_TOKEN is not set (a brand read key only reads brand context).',
        'Tell the user to create a personal access token (POST /api/v1/tokens) or a workspace API key and set it as BRAND_CONTEXT_ACCESS_TOKEN in the MCP server configuration.',
      );
    }
    return token;
  }

  private async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${this.credential(spec.credential)}`,
      ...spec.headers,
    };
    if (spec.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(`${this.config.serviceUrl}${spec.path}`, {
        method: spec.method,
        headers,
        body: spec.body === undefined ? undefined : JSON.stringify(spec.body),
        signal: AbortSignal.timeout(this.config.timeoutMs),
        redirect: 'error', // a redirect could carry the Authorization header somewhere else
      });
      text = await response.text();
    } catch (error) {
      throw this.transportError(error);
    }
    const json = parseJson(text);
    if (!response.ok) throw this.errorFromResponse(response.status, json, text);
    const parsed = spec.schema.safeParse(json);
    if (!parsed.success) {
      throw new ServiceError(
        'unexpected_response',
        `The Brand Context service at ${this.serviceUrl} answered ${spec.method} ${pathOnly(spec.path)} with a body of an unexpected shape (${summarizeIssues(parsed.error)}).`,
        'Check that BRAND_CONTEXT_URL points at a Brand Context service of the same version as this MCP server.',
        { status: response.status },
      );
    }
    return parsed.data;
  }

  private transportError(error: unknown): ServiceError {
    const name = error instanceof Error ? error.name : '';
    if (name === 'TimeoutError' || name === 'AbortError') {
      return new ServiceError(
        'service_timeout',
        `The Brand Context service at ${this.serviceUrl} did not answer within ${String(this.config.timeoutMs / 1000)} s.`,
        'Try again in a moment; if it keeps happening, check that the service is healthy (GET /readyz) or raise BRAND_CONTEXT_TIMEOUT_MS.',
      );
    }
    return new ServiceError(
      'service_unreachable',
      `Cannot reach the Brand Context service at ${this.serviceUrl}: ${networkReason(error)}.`,
      'Start it with npm start (or brand-context serve), or check BRAND_CONTEXT_URL in the MCP server configuration.',
    );
  }

  /**
   * The service never echoes a credential, but BRAND_CONTEXT_URL may point at something else (a proxy, an
   * echo server) whose answer does: what reaches the model is cleaned of them.
   */
  private redact(text: string): string {
    let clean = text;
    for (const secret of [this.config.accessToken, this.config.brandReadKey]) {
      if (secret !== undefined) clean = clean.replaceAll(secret, '[redacted]');
    }
    return clean;
  }

  private errorFromResponse(status: number, json: unknown, body: string): ServiceError {
    const problem = problemSchema.safeParse(json);
    if (problem.success) {
      const { detail, title, resolution, request_id, errors } = problem.data;
      const clean = (text: string | undefined) => (text === undefined ? undefined : this.redact(text));
      return ServiceError.fromProblem(
        {
          ...problem.data,
          detail: clean(detail),
          title: clean(title),
          resolution: clean(resolution),
          request_id: clean(request_id),
          errors: errors?.map((issue) => ({
            field: this.redact(issue.field),
            message: this.redact(issue.message),
          })),
        },
        status,
      );
    }
    const text = this.redact(body);
    const snippet = text.length > SNIPPET ? `${text.slice(0, SNIPPET)}…` : text;
    return new ServiceError(
      'unexpected_response',
      `The Brand Context service at ${this.serviceUrl} answered HTTP ${String(status)} without a problem description${snippet.trim() === '' ? '' : `: ${snippet}`}.`,
      'Check that BRAND_CONTEXT_URL points at the Brand Context service (not a proxy or another server).',
      { status },
    );
  }
}

function campaignsPath(workspaceId: string): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}/campaigns`;
}

/** JSON.stringify drops undefined members anyway; this keeps the intent visible and the body minimal. */
function definedOnly(fields: CampaignDraftFields): Record<string, string> {
  return Object.fromEntries(
    Object.entries<unknown>(fields).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string',
    ),
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function pathOnly(path: string): string {
  return path.split('?')[0] ?? path;
}

function summarizeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`)
    .join('; ');
}

/** fetch's "fetch failed" says nothing; the cause's code (ECONNREFUSED, ENOTFOUND…) says what happened. */
function networkReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'ECONNREFUSED') return 'connection refused (is the service running?)';
    if (code === 'ENOTFOUND') return 'host not found';
    if (code !== undefined) return code;
    if (cause.message !== '') return cause.message;
  }
  return error instanceof Error ? error.message : 'network error';
}
