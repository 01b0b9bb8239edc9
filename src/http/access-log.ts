import { type FastifyBaseLogger, type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import { levels } from 'pino';
import type { Metrics } from '../services/metrics/metrics.js';

/** A request as its access-log line shows it. */
export interface CompletedRequest {
  method: string;
  url: string;
  status: number;
  ms: number;
}

/**
 * One line per request, after the response: method, redacted URL, status and time; never headers. Every
 * failure is logged at info or above, so the `request_id` of any problem body can be looked up. A line per
 * successful read costs a quarter of the read operation's throughput (measured with `npm run bench`), so
 * successes are logged at debug: `LOG_LEVEL=debug` turns on a full access log. `log` is the request's
 * logger (its lines carry its `request_id`), asked for only when a line is written.
 */
export function logRequest(
  level: string,
  log: () => FastifyBaseLogger,
  request: CompletedRequest,
  error?: unknown,
): void {
  const { status } = request;
  const lineLevel = error || status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
  // Successful reads are the hot path: build no line (URL redaction included) that would be dropped.
  // ('silent' has no number: nothing is logged.)
  if ((levels.values[lineLevel] ?? 0) < (levels.values[level] ?? Number.POSITIVE_INFINITY)) return;
  // The logger masks anything key-shaped in every line it writes (src/logger.ts), the URL included.
  const line = { ...request, ms: Math.round(request.ms * 100) / 100 };
  log()[lineLevel](error ? { ...line, err: error } : line, error ? 'request failed' : 'request');
}

/**
 * Fastify's access log: `logRequest` for every request the router answers, counted once in the metrics
 * rather than in a hook of its own (docs/operations.md "Operations"). The read operation answers below the
 * router and records its own (src/http/routes/brand-agent.ts).
 */
export class AccessLog extends LogController {
  constructor(
    private readonly metrics: Metrics | undefined,
    private readonly answeredBelow: string,
  ) {
    super({ requestIdLogLabel: 'request_id' });
  }

  override incomingRequest(): void {
    // The completion line carries everything; a second line per request would only double the cost.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (request.routeOptions.url === this.answeredBelow) return;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    this.metrics?.requestCompleted(request.routeOptions.url, request.method, status, ms);
    logRequest(
      request.log.level,
      () => request.log,
      { method: request.method, url: request.url, status, ms },
      error ?? undefined,
    );
  }
}
