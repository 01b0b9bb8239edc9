import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Metrics } from '../../services/metrics/metrics.js';

const BEARER = /^Bearer +(\S+) *$/i;
/** Schemes a detail may name (IANA's registry): an unknown first word might be the token itself. */
const OTHER_SCHEMES = new Map(
  ['Basic', 'Digest', 'DPoP', 'HOBA', 'Mutual', 'Negotiate', 'NTLM', 'OAuth', 'Token', 'ApiKey'].map(
    (scheme) => [scheme.toLowerCase(), scheme],
  ),
);
/** RFC 6750: a credential sent, but not as a bearer token, is a malformed request. */
const MALFORMED = {
  headers: { 'www-authenticate': 'Bearer realm="brand-context", error="invalid_request"' },
};

/** The bearer token of an Authorization header, or why there is none. */
function bearerToken(authorization: string | undefined): string | AppError {
  if (authorization === undefined || authorization.trim() === '')
    return new AppError('metrics_token_required', { reason: 'missing' });
  const token = BEARER.exec(authorization)?.[1];
  if (token !== undefined) return token;
  const scheme = OTHER_SCHEMES.get(/^(\S+) /.exec(authorization)?.[1]?.toLowerCase() ?? '');
  return scheme === undefined
    ? new AppError('metrics_token_required', { reason: 'malformed' }, MALFORMED)
    : new AppError('metrics_token_required', { reason: 'scheme', scheme }, MALFORMED);
}

/** A fixed-length digest, so the comparison takes as long whatever the length of the token sent. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/**
 * `GET /metrics`, Prometheus's text format (docs/operations.md lists the metrics). With METRICS_TOKEN set the
 * scraper sends it as a bearer token, compared in constant time and never echoed. Outside the API reference,
 * the key and session checks and the read operation's rate limit: it is the operator's, not a workspace's.
 */
export function metricsRoute(app: FastifyInstance, metrics: Metrics, token: string | undefined): void {
  const expected = token === undefined ? undefined : digest(token);
  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    if (expected !== undefined) {
      const sent = bearerToken(request.headers.authorization);
      if (sent instanceof AppError) throw sent;
      if (!timingSafeEqual(digest(sent), expected)) throw new AppError('invalid_metrics_token');
    }
    const text = await metrics.text();
    return reply.type(metrics.contentType()).header('cache-control', 'no-store').send(text);
  });
}
