import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../../core/errors.js';
import type { Metrics } from '../../services/metrics.js';

const BEARER = /^Bearer +(\S+) *$/i;

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
      const sent = BEARER.exec(request.headers.authorization ?? '')?.[1];
      if (sent === undefined) throw new AppError('metrics_token_required');
      if (!timingSafeEqual(digest(sent), expected)) throw new AppError('invalid_metrics_token');
    }
    const text = await metrics.text();
    return reply.type(metrics.contentType()).header('cache-control', 'no-store').send(text);
  });
}
