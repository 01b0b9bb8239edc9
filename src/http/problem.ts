import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { redactBrandKeys } from '../core/brand-key.js';
import { AppError, type FieldIssue, PROBLEMS, type ProblemCode } from '../core/errors.js';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const REALM = 'Bearer realm="brand-context"';

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
  const { title, status, resolution } = PROBLEMS[error.code];
  const body: ProblemBody = {
    type: problemType(error.code),
    title,
    status,
    code: error.code,
    detail: redactBrandKeys(error.detail),
    resolution,
    request_id: requestId,
  };
  if (error.fields.length > 0) body.errors = error.fields;
  return body;
}

/** Fastify's own errors (body parsing, limits) as the problems clients are promised. */
function fromFastifyError(error: FastifyError): AppError | undefined {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AppError(
        'unsupported_media_type',
        'The body must be JSON sent with "Content-Type: application/json".',
      );
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('payload_too_large', 'The request body exceeds the size limit.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('invalid_json', 'The body is empty; a JSON object was expected.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('invalid_json', 'The body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('invalid_request', 'The Content-Length header does not match the body.');
  }
  if (error.statusCode === 404) return new AppError('not_found', 'No such route.');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError('invalid_request', 'The request could not be understood.');
  }
  return undefined;
}

/** The single place where any error becomes an HTTP response. */
export function handleError(
  error: FastifyError | AppError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const problem =
    error instanceof AppError
      ? error
      : (fromFastifyError(error) ?? new AppError('internal_error', 'An unexpected error occurred.'));
  if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
  if (problem.status === 401) {
    reply.header(
      'www-authenticate',
      problem.code === 'missing_key' ? REALM : `${REALM}, error="invalid_token"`,
    );
  }
  return reply.code(problem.status).type(PROBLEM_CONTENT_TYPE).send(toProblemBody(problem, request.id));
}
