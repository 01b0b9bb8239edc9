import type { FastifyError, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { redactKeys } from '../core/secret-keys.js';
import type { z } from 'zod';
import { toFieldIssues } from '../core/inputs.js';
import { AppError, type FieldIssue, PROBLEMS, type ProblemCode } from '../core/errors.js';
import { StoreError } from '../store/errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const REALM = 'Bearer realm="brand-context"';
/** 401s where no token was presented: RFC 6750 names no `error` then. */
const NO_TOKEN_CODES = new Set<ProblemCode>([
  'missing_key',
  'missing_token',
  'invalid_credentials',
  'metrics_token_required',
]);

/** RFC 9457 body; `errors` lists field-level issues when there are any. */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: ProblemCode;
  detail: string;
  resolution: string;
  request_id: string;
  errors?: readonly FieldIssue[];
}

export function problemType(code: ProblemCode): string {
  return `urn:brand-context:problem:${code}`;
}

export function toProblemBody(error: AppError, requestId: string): ProblemBody {
  const { title, status } = PROBLEMS[error.code];
  const body: ProblemBody = {
    type: problemType(error.code),
    title,
    status,
    code: error.code,
    detail: redactKeys(error.detail),
    resolution: error.resolution,
    request_id: requestId,
  };
  // Field names and messages echo the caller's input too (an unknown field may be a pasted key).
  if (error.fields.length > 0) {
    body.errors = error.fields.map((issue) => ({
      field: redactKeys(issue.field),
      message: redactKeys(issue.message),
    }));
  }
  return body;
}

/**
 * A schema validation issue back as the zod issue it came from: fastify-type-provider-zod keeps the issue's
 * fields in `params` and its path as a JSON pointer (`/knowledge/3/kind`).
 */
function toZodIssue(issue: FastifySchemaValidationError): z.core.$ZodIssue {
  const path = issue.instancePath
    .split('/')
    .filter(Boolean)
    .map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment));
  return {
    ...issue.params,
    code: issue.keyword,
    path,
    message: issue.message ?? 'is invalid',
  } as z.core.$ZodIssue;
}

/** Schema validation failures, one issue per offending field, named as the CLI names them. */
export function fromValidation(validation: readonly FastifySchemaValidationError[]): AppError {
  const fields = toFieldIssues(validation.map(toZodIssue));
  return new AppError('invalid_request', { reason: 'schema', fields });
}

/** Fastify's own errors (body parsing, limits, schema validation) as the problems clients are promised. */
function fromFastifyError(error: FastifyError): AppError | undefined {
  if (error.validation && error.validation.length > 0) return fromValidation(error.validation);
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError('unsupported_media_type');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', { reason: 'body' });
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', { reason: 'empty' });
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', { reason: 'syntax' });
    case 'FST_CSRF_MISSING_SECRET':
    case 'FST_CSRF_INVALID_TOKEN':
      return new AppError('csrf_failed');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', { reason: 'content_length' });
    // Reached through Fastify's frameworkErrors; the URL is not echoed (it may be long, or hold a secret).
    case 'FST_ERR_BAD_URL':
      return new AppError('bad_request', { reason: 'url' });
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('uri_too_long');
  }
  if (error.statusCode === 404) return new AppError('not_found', { reason: 'unrouted' });
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('invalid_request', { reason: 'unreadable' });
  }
  return undefined;
}

/** Any error as the problem a client is told: Fastify's and the store's as theirs, anything unknown a 500. */
export function problemOf(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (error instanceof StoreError) return error.toAppError();
  return (
    (error instanceof Error && fromFastifyError(error as FastifyError)) || new AppError('internal_error')
  );
}

/** The headers a problem is answered with beside its body: its own, and a 401's challenge (RFC 6750). */
function problemHeaders(problem: AppError): Record<string, string> {
  // A problem may name its own challenge (a malformed credential: error="invalid_request").
  if (problem.status !== 401 || problem.headers['www-authenticate'] !== undefined) return problem.headers;
  const challenge = NO_TOKEN_CODES.has(problem.code) ? REALM : `${REALM}, error="invalid_token"`;
  return { ...problem.headers, 'www-authenticate': challenge };
}

/** The single place where any error becomes an HTTP response. */
export function handleError(
  error: FastifyError | AppError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const problem = problemOf(error);
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  reply.headers(problemHeaders(problem));
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(toProblemBody(problem, request.id));
}

/** A problem answered below Fastify, on a raw response or socket. */
export interface RawProblem {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * The same problem+json as `handleError`, for answers written below the router: the read operation's
 * (src/http/routes/brand-agent.ts) and the transport's.
 */
export function rawProblem(problem: AppError, requestId: string): RawProblem {
  const body = JSON.stringify(toProblemBody(problem, requestId));
  return {
    status: problem.status,
    headers: {
      ...problemHeaders(problem),
      'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
      'content-length': String(Buffer.byteLength(body)),
      'x-request-id': requestId,
    },
    body,
  };
}

/** `rawProblem` for the transport's answers (src/http/transport.ts): the connection closes after it. */
export function closingProblem(error: AppError, requestId: string): RawProblem {
  const answer = rawProblem(error, requestId);
  answer.headers.connection = 'close';
  return answer;
}
