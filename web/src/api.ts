/**
 * The console's only way to the service: same-origin JSON over the session cookie. Every write carries the
 * CSRF token of this page load; problem+json answers become `ApiError`s the pages can show as they are.
 */

interface FieldError {
  field: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly resolution: string,
    readonly fieldErrors: readonly FieldError[] = [],
    /** A 429's Retry-After: how many seconds to wait before trying again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  /** The message for the field at `path`, including errors about its items (`path[2]`, `path.x`). */
  fieldError(path: string): string | undefined {
    return this.fieldErrors.find(
      ({ field }) => field === path || field.startsWith(`${path}[`) || field.startsWith(`${path}.`),
    )?.message;
  }
}

// Kept in memory only: a reload asks GET /auth/v1/session/status for a fresh one.
let csrfToken: string | null = null;
let unauthorizedHandler: () => void = () => undefined;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** What to do when the session has ended (401 on any call but sign-in and the session probe). */
export function onUnauthorized(handler: () => void): void {
  unauthorizedHandler = handler;
}

interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  headers?: Record<string, string>;
  /** False for calls whose 401 is an answer (wrong password, not signed in) rather than an ended session. */
  endSessionOn401?: boolean;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toFieldErrors(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown) =>
    isRecord(item) && typeof item.field === 'string' && typeof item.message === 'string'
      ? [{ field: item.field, message: item.message }]
      : [],
  );
}

async function problemOf(response: Response): Promise<ApiError> {
  const body: unknown = await response.json().catch(() => null);
  if (isRecord(body) && typeof body.code === 'string' && typeof body.detail === 'string') {
    const resolution = typeof body.resolution === 'string' ? body.resolution : '';
    const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
    return new ApiError(
      response.status,
      body.code,
      body.detail,
      resolution,
      toFieldErrors(body.errors),
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
  return new ApiError(
    response.status,
    'unexpected_response',
    `The service answered ${String(response.status)} ${response.statusText}.`,
    'Try again in a moment; if it keeps happening, check the service logs.',
  );
}

export async function request<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: 'same-origin',
      body: options.body === undefined ? null : JSON.stringify(options.body),
    });
  } catch {
    throw new ApiError(
      0,
      'network_error',
      'The service could not be reached.',
      'Check your connection and that the service is running, then try again.',
    );
  }
  if (!response.ok) {
    const error = await problemOf(response);
    if (response.status === 401 && options.endSessionOn401 !== false) unauthorizedHandler();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export const api = {
  get: <T>(path: string) => request<T>(path),
  post: <T>(path: string, body?: unknown) => request<T>(path, { method: 'POST', body }),
  put: <T>(path: string, body: unknown, headers?: Record<string, string>) =>
    request<T>(path, { method: 'PUT', body, ...(headers && { headers }) }),
  patch: <T>(path: string, body: unknown, headers?: Record<string, string>) =>
    request<T>(path, { method: 'PATCH', body, ...(headers && { headers }) }),
  delete: <T = void>(path: string) => request<T>(path, { method: 'DELETE' }),
};

/** Any thrown value as an ApiError, so pages have one kind of error to show. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(
    0,
    'client_error',
    error instanceof Error ? error.message : 'Something went wrong.',
    'Reload the page and try again.',
  );
}

/** Path of a workspace-scoped API route. */
export function workspacePath(workspaceId: string, rest = ''): string {
  return `/api/v1/workspaces/${encodeURIComponent(workspaceId)}${rest}`;
}
