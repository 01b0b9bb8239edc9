import { decodeJwt } from 'jose';
import { z } from 'zod';
import { type BrandCheckResult, brandCheckResultSchema } from '../contract/brand-check.js';
import type { BrandReadOptions, BrandViewOptions } from '../contract/brand-views.js';
import {
  type Campaign,
  type CampaignContentField,
  type CampaignPage,
  campaignPageSchema,
  campaignSchema,
} from '../contract/campaigns.js';
import { type Workspace, workspaceListSchema } from '../contract/workspaces.js';
import type { BrandCheckContent } from '../core/brand-check.js';
import { VIEW_CONTENT_TYPES } from '../core/brand-views.js';
import type { ProblemCode } from '../core/errors.js';
import { KEY_KINDS } from '../core/key-kinds.js';
import { looksLikeJwt } from '../core/secret-keys.js';
import type { McpConfig } from './config.js';
import { brandKnowledgeSchema, type Problem, problemSchema } from './schemas.js';

/** The MCP server's own failure codes, for what goes wrong before or around the service's answer. */
export type McpErrorCode =
  | 'missing_access_token'
  | 'missing_brand_read_key'
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
    readonly extra: {
      status?: number;
      fields?: Problem['errors'];
      requestId?: string;
      /** The environment variable whose credential the refused call sent. */
      credential?: CredentialVariable;
    } = {},
  ) {
    super(detail);
  }

  static fromProblem(problem: Problem, status: number, credential?: CredentialVariable): ServiceError {
    return new ServiceError(
      problem.code,
      problem.detail ?? problem.title ?? `The service answered ${status}.`,
      problem.resolution ?? '',
      { status, fields: problem.errors, requestId: problem.request_id, credential },
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

/** Which credential a call uses: the brand read key when set (else the access token), or the access token. */
export type Credential = 'access' | 'brand';
/** Where the MCP client's configuration holds each credential. */
export type CredentialVariable = 'BRAND_CONTEXT_ACCESS_TOKEN' | 'BRAND_READ_KEY';

/** The knowledge filters of the read operation. */
export type KnowledgeFilters = Pick<BrandViewOptions, 'knowledge_kinds' | 'knowledge_tags'>;
/** A brand's knowledge entries. */
export type BrandKnowledge = z.output<typeof brandKnowledgeSchema>['knowledge'];

/**
 * What the MCP server asks of the service (src/mcp/server.ts): over HTTP from the stdio server
 * (`ServiceClient`), or in the service's own process for /mcp (src/mcp/in-process-client.ts). Every failure
 * is a ServiceError.
 */
export interface BrandContextClient {
  /**
   * A view of the brand, rendered as the read operation renders it (JSON, Markdown or design tokens): the
   * latest, or the version `options.version` pins.
   */
  readBrand(workspaceId: string, options: BrandReadOptions): Promise<string>;
  /** The version of the workspace's published brand now. */
  brandVersion(workspaceId: string): Promise<number>;
  /** The workspace's knowledge entries, filtered. */
  readKnowledge(workspaceId: string, filters: KnowledgeFilters): Promise<BrandKnowledge>;
  /**
   * The on-brand check of `content` (docs/brand-check.md) against the published brand, or the version
   * `version` pins: POST /functions/v1/brand-check.
   */
  checkBrand(workspaceId: string, content: BrandCheckContent, version?: number): Promise<BrandCheckResult>;
  /** The workspaces of the user behind the credential, with their role in each. */
  listWorkspaces(): Promise<Workspace[]>;
  listCampaigns(workspaceId: string, query: ListCampaignsQuery): Promise<CampaignPage>;
  getCampaign(workspaceId: string, campaignId: string): Promise<Campaign>;
  createCampaign(workspaceId: string, fields: CampaignDraftFields): Promise<Campaign>;
  /** Changes a draft unless it changed since `version`. */
  updateCampaign(
    workspaceId: string,
    campaignId: string,
    version: number,
    fields: CampaignDraftFields,
  ): Promise<Campaign>;
  /** One line for the model to pass on when the credential a call of `kind` uses expires soon. */
  expiryNotice(kind: Credential): string | undefined;
}

interface SendSpec {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  credential: Credential;
  /** The media type of a successful answer. */
  accept?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

interface RequestSpec<S extends z.ZodType> extends SendSpec {
  schema: S;
}

/** The read operation with these options, with the brand read key when set, else the access token. */
function brandRead(workspaceId: string, options: BrandReadOptions): SendSpec {
  return {
    method: 'POST',
    path: '/functions/v1/brand-agent',
    credential: 'brand',
    body: { action: 'context', workspace_id: workspaceId, ...options },
  };
}

/** What `brandVersion` reads of an answer. */
const brandVersionSchema = z.object({ version: z.number().int().min(1) });

const SNIPPET = 200;
const DAY_MS = 24 * 60 * 60 * 1000;
/** How long before a credential expires each answer starts saying so (docs/mcp.md "MCP"). */
const EXPIRY_NOTICE_DAYS = 14;

/**
 * A small client of the service's HTTP API (docs/reading-brand-context.md, docs/management-api.md, docs/campaigns.md). Every failure — a problem+json answer,
 * an unreachable service, a timeout, an answer of an unexpected shape — becomes a ServiceError whose text
 * never contains a credential.
 */
export class ServiceClient implements BrandContextClient {
  /** When each key expires, as the service's Brand-Key-Expires header last said (a JWT says it itself). */
  private readonly keyExpiry = new Map<string, number>();

  constructor(
    private readonly config: McpConfig,
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  get serviceUrl(): string {
    return this.config.serviceUrl;
  }

  /**
   * POST /functions/v1/brand-agent with the options (docs/reading-brand-context.md "Formats and sections"), with the brand read key
   * when set, else the access token: the rendering as the service sends it (JSON, Markdown or design tokens).
   */
  async readBrand(workspaceId: string, options: BrandReadOptions): Promise<string> {
    const expected = mediaType(VIEW_CONTENT_TYPES[options.format ?? 'json']);
    const spec: SendSpec = { ...brandRead(workspaceId, options), accept: expected };
    const { response, text } = await this.send(spec);
    const type = mediaType(response.headers.get('content-type') ?? '');
    if (type !== expected) throw this.unexpected(spec, response.status, `a body of type ${type || 'none'}`);
    return text;
  }

  /** The brand's version, as the smallest view of it (its description) carries it. */
  async brandVersion(workspaceId: string): Promise<number> {
    const { version } = await this.request({
      ...brandRead(workspaceId, { format: 'json', sections: ['description'] }),
      schema: brandVersionSchema,
    });
    return version;
  }

  /** The workspace's knowledge entries, filtered by the service. */
  async readKnowledge(workspaceId: string, filters: KnowledgeFilters): Promise<BrandKnowledge> {
    const { knowledge } = await this.request({
      ...brandRead(workspaceId, { format: 'json', sections: ['knowledge'], ...filters }),
      schema: brandKnowledgeSchema,
    });
    return knowledge;
  }

  /** POST /functions/v1/brand-check, with the brand read key when set, else the access token. */
  checkBrand(workspaceId: string, content: BrandCheckContent, version?: number): Promise<BrandCheckResult> {
    return this.request({
      method: 'POST',
      path: '/functions/v1/brand-check',
      credential: 'brand',
      body: { workspace_id: workspaceId, content, ...(version === undefined ? {} : { version }) },
      schema: brandCheckResultSchema,
    });
  }

  /** GET /api/v1/workspaces: the access token's user's workspaces. */
  async listWorkspaces(): Promise<Workspace[]> {
    const list = await this.request({
      method: 'GET',
      path: '/api/v1/workspaces',
      credential: 'access',
      schema: workspaceListSchema,
    });
    return list.workspaces;
  }

  listCampaigns(workspaceId: string, query: ListCampaignsQuery): Promise<CampaignPage> {
    const params = new URLSearchParams();
    if (query.status !== undefined) params.set('status', query.status);
    if (query.limit !== undefined) params.set('limit', String(query.limit));
    if (query.cursor !== undefined) params.set('cursor', query.cursor);
    const search = params.size > 0 ? `?${params.toString()}` : '';
    return this.request({
      method: 'GET',
      path: `${campaignsPath(workspaceId)}${search}`,
      credential: 'access',
      schema: campaignPageSchema,
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

  /**
   * One line for the model to pass on when the credential of `kind` expires within EXPIRY_NOTICE_DAYS: which
   * one, when, and how to replace it. A JWT carries its expiry (read, not verified: the service verifies
   * it); a key's is the Brand-Key-Expires header of the service's last answer to it.
   */
  expiryNotice(kind: Credential, now = Date.now()): string | undefined {
    const token = this.tokenFor(kind);
    if (token === undefined) return undefined;
    const expires = looksLikeJwt(token) ? jwtExpiry(token) : this.keyExpiry.get(token);
    if (expires === undefined || !expiresSoon(expires, now)) return undefined;
    const [what, todo] = token.startsWith(KEY_KINDS.brand.prefix)
      ? ['brand read key (BRAND_READ_KEY)', 'rotate it in Settings → Agent Access']
      : token.startsWith(KEY_KINDS.api.prefix)
        ? ['workspace API key (BRAND_CONTEXT_ACCESS_TOKEN)', 'rotate it in Settings → Agent Access']
        : ['access token (BRAND_CONTEXT_ACCESS_TOKEN)', 'create a new personal access token'];
    return expiryLine(what, todo, expires, now, 'MCP server');
  }

  /** The configured token a call of `kind` sends, if any. */
  private tokenFor(kind: Credential): string | undefined {
    return kind === 'brand' ? (this.config.brandReadKey ?? this.config.accessToken) : this.config.accessToken;
  }

  private credential(kind: Credential): string {
    const token = this.tokenFor(kind);
    // The read operation takes a brand read key or a user's token: a workspace API key would be refused as
    // malformed, and its advice (replace the key) would send the user after the wrong credential.
    if (
      kind === 'brand' &&
      this.config.brandReadKey === undefined &&
      token?.startsWith(KEY_KINDS.api.prefix)
    ) {
      throw new ServiceError(
        'missing_brand_read_key',
        'Reading brand context needs a brand read key (brk_…): BRAND_READ_KEY is not set, and the workspace API key in BRAND_CONTEXT_ACCESS_TOKEN only reaches campaign drafts.',
        'Tell the user to create a brand read key in Settings → Agent Access and set it as BRAND_READ_KEY in the MCP server configuration; BRAND_CONTEXT_ACCESS_TOKEN stays as it is, for campaign drafts.',
      );
    }
    if (token === undefined) {
      throw new ServiceError(
        'missing_access_token',
        'This tool needs a user access token or workspace API key, and BRAND_CONTEXT_ACCESS_TOKEN is not set (a brand read key only reads brand context).',
        'Tell the user to create a personal access token (POST /api/v1/tokens) or a workspace API key and set it as BRAND_CONTEXT_ACCESS_TOKEN in the MCP server configuration.',
      );
    }
    return token;
  }

  /** A JSON answer, parsed with the spec's schema. */
  private async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const { response, text } = await this.send(spec);
    const parsed = spec.schema.safeParse(parseJson(text));
    if (!parsed.success)
      throw this.unexpected(
        spec,
        response.status,
        `a body of an unexpected shape (${summarizeIssues(parsed.error)})`,
      );
    return parsed.data;
  }

  /** The answer's text when it succeeded; any failure as a ServiceError (problem+json or not). */
  private async send(spec: SendSpec): Promise<{ response: Response; text: string }> {
    const token = this.credential(spec.credential);
    const headers: Record<string, string> = {
      accept: spec.accept ?? 'application/json',
      authorization: `Bearer ${token}`,
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
    const expires = Date.parse(response.headers.get('brand-key-expires') ?? '');
    if (!Number.isNaN(expires)) this.keyExpiry.set(token, expires);
    if (!response.ok) {
      const variable = token === this.config.brandReadKey ? 'BRAND_READ_KEY' : 'BRAND_CONTEXT_ACCESS_TOKEN';
      throw this.errorFromResponse(response.status, parseJson(text), text, variable);
    }
    return { response, text };
  }

  private unexpected(spec: SendSpec, status: number, what: string): ServiceError {
    return new ServiceError(
      'unexpected_response',
      `The Brand Context service at ${this.serviceUrl} answered ${spec.method} ${pathOnly(spec.path)} with ${what}.`,
      'Check that BRAND_CONTEXT_URL points at a Brand Context service of the same version as this MCP server.',
      { status },
    );
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

  private errorFromResponse(
    status: number,
    json: unknown,
    body: string,
    credential: CredentialVariable,
  ): ServiceError {
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
        credential,
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

/** Whether a credential expiring at `expires` (epoch ms) is close enough to its end for a notice. */
export function expiresSoon(expires: number, now: number): boolean {
  return expires > now && expires - now <= EXPIRY_NOTICE_DAYS * DAY_MS;
}

/** The expiry notice's one line: which credential, when, what to do, and where the new one goes. */
export function expiryLine(
  what: string,
  todo: string,
  expires: number,
  now: number,
  where: 'MCP server' | 'MCP client',
): string {
  const days = Math.ceil((expires - now) / DAY_MS);
  const when = `${new Date(expires).toISOString().slice(0, 16).replace('T', ' ')} UTC (in ${String(days)} day${days === 1 ? '' : 's'})`;
  return `Tell the user: the Brand Context ${what} expires ${when}; ${todo} and put the new one in the ${where} configuration.`;
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

/** `text/markdown; charset=utf-8` → `text/markdown`. */
function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The JWT's `exp` in milliseconds; undefined when it has none or is not a JWT after all. */
function jwtExpiry(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return exp === undefined ? undefined : exp * 1000;
  } catch {
    return undefined;
  }
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
