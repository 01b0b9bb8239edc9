import type { z } from 'zod';
import type { Operations } from './operations';

/**
 * The console's only way to the service: same-origin JSON over the session cookie. Every write carries the
 * CSRF token of this page load; problem+json answers become `ApiError`s the pages can show as they are.
 * What each call sends and answers is typed by the table of operations (operations.ts), from the contract.
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

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
type OperationKey = keyof Operations;
type PathOfKey<K> = K extends `${Method} ${infer P}` ? P : never;

/** A path of the table, as /openapi.json names it: `/api/v1/workspaces/{id}/brand`. */
export type ApiPath = PathOfKey<OperationKey>;

/** `T` with text allowed wherever it has a number. */
type AsTyped<T> = T extends number
  ? number | string
  : T extends readonly (infer Item)[]
    ? AsTyped<Item>[]
    : T extends object
      ? { [K in keyof T]: AsTyped<T[K]> }
      : T;

type RequestOf<O> = O extends { request: infer S extends z.ZodType }
  ? O extends { numbersAsTyped: true }
    ? AsTyped<z.input<S>>
    : z.input<S>
  : undefined;

/** What each method of a path sends and answers. */
type Calls<P extends string> = {
  [K in OperationKey as K extends `${infer M extends Method} ${P}` ? M : never]: {
    request: RequestOf<Operations[K]>;
    response: z.output<Operations[K]['response']>;
  };
};

declare const CALLS: unique symbol;

/** The URL of one of the table's paths, its parameters filled in: a string that knows its operations. */
export type Url<P extends ApiPath> = string & { readonly [CALLS]: Calls<P> };

/** A URL whose `M` sends `B` and answers `T`. */
type At<M extends Method, B, T> = string & { readonly [CALLS]: Record<M, { request: B; response: T }> };

/** A URL that GET answers `T` at: what the hooks load. */
export type GetUrl<T> = At<'GET', undefined, T>;

type ParameterOf<P> = P extends `${string}{${infer Name}}${infer Rest}` ? Name | ParameterOf<Rest> : never;
type Query = Record<string, string | undefined>;
type UrlArgs<P> = [ParameterOf<P>] extends [never]
  ? [parameters?: Record<string, never>, query?: Query]
  : [parameters: Record<ParameterOf<P>, string>, query?: Query];

function withSearch(target: string, query: Query): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, value);
  const text = search.toString();
  if (text === '') return target;
  return `${target}${target.includes('?') ? '&' : '?'}${text}`;
}

/** `path` with its `{parameters}` filled in (encoded), and the query's defined values. */
export function url<P extends ApiPath>(path: P, ...[parameters, query = {}]: UrlArgs<P>): Url<P> {
  const values: Record<string, string> = parameters ?? {};
  const filled = path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(values[name] ?? ''));
  // The one place a string becomes a Url: its path is the table's, its parameters filled in just above.
  return withSearch(filled, query) as Url<P>;
}

/** The same URL with more of the query: a page's cursor, a log's filter. */
export function withQuery<U extends string>(target: U, query: Query): U {
  return withSearch(target, query) as U;
}

interface CallOptions {
  headers?: Record<string, string>;
  /** False for calls whose 401 is an answer (wrong password, not signed in) rather than an ended session. */
  endSessionOn401?: boolean;
  /** Told the headers of a successful answer: for what its body does not hold (a brand draft's ETag). */
  onHeaders?: (headers: Headers) => void;
}

/** The body, or undefined for no content: what the call answered, not yet typed. */
async function send(method: Method, target: string, body: unknown, options: CallOptions): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken !== null) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(target, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? null : JSON.stringify(body),
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
  options.onHeaders?.(response.headers);
  if (response.status === 204) return undefined;
  return (await response.json()) as unknown;
}

/**
 * Development builds check every answer against its operation's schema, loaded for that alone: a
 * production build has no import of operations.ts left, nor of the schemas it names.
 */
async function checkAnswer(method: Method, target: string, answer: unknown): Promise<void> {
  const { operationAt } = await import('./operations');
  const [pathname = ''] = target.split('?');
  const operation = operationAt(method, pathname);
  const result = operation?.response.safeParse(answer);
  if (result?.success === true) return;
  const { prettifyError } = await import('zod');
  throw new ApiError(
    0,
    'unexpected_response',
    result === undefined
      ? `${method} ${pathname} is not in the console's table of operations.`
      : `The answer to ${method} ${pathname} is not what the contract says:\n${prettifyError(result.error)}`,
    'The console and the service disagree: build both from the same sources.',
  );
}

async function call<T>(method: Method, target: string, body: unknown, options: CallOptions = {}): Promise<T> {
  const answer = await send(method, target, body, options);
  if (import.meta.env.DEV) await checkAnswer(method, target, answer);
  // The answer's type is its operation's (`At` reads it from the table); the service checks every answer
  // against the same schema before sending it, and development builds check it again just above.
  return answer as T;
}

type BodyArgs<B> = undefined extends B ? [body?: B, options?: CallOptions] : [body: B, options?: CallOptions];

export const api = {
  get: <T>(target: GetUrl<T>, options?: CallOptions) => call<T>('GET', target, undefined, options),
  post: <B, T>(target: At<'POST', B, T>, ...[body, options]: BodyArgs<B>) =>
    call<T>('POST', target, body, options),
  put: <B, T>(target: At<'PUT', B, T>, ...[body, options]: BodyArgs<B>) =>
    call<T>('PUT', target, body, options),
  patch: <B, T>(target: At<'PATCH', B, T>, ...[body, options]: BodyArgs<B>) =>
    call<T>('PATCH', target, body, options),
  delete: <T>(target: At<'DELETE', undefined, T>, options?: CallOptions) =>
    call<T>('DELETE', target, undefined, options),
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
