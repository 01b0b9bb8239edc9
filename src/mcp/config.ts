import { BRAND_KEY, looksLikeJwt, WORKSPACE_API_KEY } from '../core/secret-keys.js';

/**
 * Configuration of `brand-context mcp` (docs/mcp.md "MCP"), read from the environment that an MCP client's config
 * sets. The MCP server is a plain HTTP client of a running service, so this is all it needs.
 */

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:8787';
export const DEFAULT_TIMEOUT_MS = 15_000;

export interface McpConfig {
  /** The service's base URL, without a trailing slash (a path prefix behind a proxy is kept). */
  serviceUrl: string;
  /** User JWT (sign-in or personal access token) or workspace API key (`wsk_…`). */
  accessToken: string | undefined;
  /** Brand read key (`brk_…`): used for brand reads when set. */
  brandReadKey: string | undefined;
  /** The workspace used when a tool call names none. */
  workspaceId: string | undefined;
  timeoutMs: number;
  /**
   * How often the server asks the service for the brand's version while a client subscribes to the brand
   * resources (BRAND_CONTEXT_WATCH_MS; src/mcp/server.ts DEFAULT_WATCH_MS when unset).
   */
  watchMs?: number | undefined;
}

/** Unusable configuration: reported as one line on stderr, exit code 1. Never quotes a secret. */
export class McpConfigError extends Error {
  override readonly name = 'McpConfigError';
}

const WORKSPACE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** Client configs often carry `"VAR": ""` for an unused variable: empty means unset. */
function read(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function parseServiceUrl(value: string | undefined): string {
  const raw = value ?? DEFAULT_SERVICE_URL;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new McpConfigError(
      `BRAND_CONTEXT_URL is not a valid URL; set it to the service's base URL, e.g. ${DEFAULT_SERVICE_URL}`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new McpConfigError(
      `BRAND_CONTEXT_URL must be an http:// or https:// URL, e.g. ${DEFAULT_SERVICE_URL}`,
    );
  }
  // Credentials in the URL would end up in error messages and logs; tokens have their own variables.
  if (url.username !== '' || url.password !== '') {
    throw new McpConfigError(
      'BRAND_CONTEXT_URL must not contain credentials; put the token in BRAND_CONTEXT_ACCESS_TOKEN',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new McpConfigError(
      `BRAND_CONTEXT_URL must be a base URL without query or fragment, e.g. ${DEFAULT_SERVICE_URL}`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function parseAccessToken(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.startsWith(BRAND_KEY.prefix)) {
    throw new McpConfigError(
      'BRAND_CONTEXT_ACCESS_TOKEN holds a brand read key (brk_…); put it in BRAND_READ_KEY and set BRAND_CONTEXT_ACCESS_TOKEN to a user access token or workspace API key',
    );
  }
  if (!looksLikeJwt(value) && WORKSPACE_API_KEY.formatProblem(value) !== undefined) {
    throw new McpConfigError(
      'BRAND_CONTEXT_ACCESS_TOKEN is neither a user access token (a JWT from sign-in or POST /api/v1/tokens) nor a workspace API key (wsk_…); check that the whole token was copied',
    );
  }
  return value;
}

function parseBrandReadKey(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (BRAND_KEY.formatProblem(value) !== undefined) {
    throw new McpConfigError(
      'BRAND_READ_KEY is not a brand read key (brk_ followed by 36 letters and digits); check that the whole key was copied',
    );
  }
  return value;
}

function parseTimeout(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 1 || ms > 300_000) {
    throw new McpConfigError('BRAND_CONTEXT_TIMEOUT_MS must be 1-300000 milliseconds');
  }
  return ms;
}

function parseWatch(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const ms = Number(value);
  if (!/^\d+$/.test(value) || ms < 100 || ms > 3_600_000) {
    throw new McpConfigError('BRAND_CONTEXT_WATCH_MS must be 100-3600000 milliseconds');
  }
  return ms;
}

/** Reads and checks the MCP server's environment; throws McpConfigError for anything unusable. */
export function loadMcpConfig(env: NodeJS.ProcessEnv = process.env): McpConfig {
  const serviceUrl = parseServiceUrl(read(env, 'BRAND_CONTEXT_URL'));
  const accessToken = parseAccessToken(read(env, 'BRAND_CONTEXT_ACCESS_TOKEN'));
  const brandReadKey = parseBrandReadKey(read(env, 'BRAND_READ_KEY'));
  const workspaceId = read(env, 'BRAND_CONTEXT_WORKSPACE_ID');
  if (workspaceId !== undefined && !WORKSPACE_ID.test(workspaceId)) {
    throw new McpConfigError('BRAND_CONTEXT_WORKSPACE_ID is not a workspace id (e.g. ws_8fK2…)');
  }
  if (accessToken === undefined && brandReadKey === undefined) {
    throw new McpConfigError(
      'Set BRAND_CONTEXT_ACCESS_TOKEN (a personal access token from POST /api/v1/tokens) or BRAND_READ_KEY (brk_…) for the MCP server',
    );
  }
  // Only a user token can list the caller's workspaces; a key belongs to one workspace that we cannot look up.
  if (
    workspaceId === undefined &&
    (accessToken === undefined || accessToken.startsWith(WORKSPACE_API_KEY.prefix))
  ) {
    throw new McpConfigError(
      'Set BRAND_CONTEXT_WORKSPACE_ID to the workspace of the key: without a user access token the MCP server cannot look up your workspaces',
    );
  }
  return {
    serviceUrl,
    accessToken,
    brandReadKey,
    workspaceId,
    timeoutMs: parseTimeout(read(env, 'BRAND_CONTEXT_TIMEOUT_MS')),
    watchMs: parseWatch(read(env, 'BRAND_CONTEXT_WATCH_MS')),
  };
}
