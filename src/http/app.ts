import { randomUUID } from 'node:crypto';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { IncomingMessage } from 'node:http';
import { type Clock, systemClock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { redactBrandKeys } from '../core/brand-key.js';
import { BrandReader } from '../services/brand-reader.js';
import type { Store } from '../store/store.js';
import { handleError } from './problem.js';
import { brandAgentRoutes } from './routes/brand-agent.js';
import { healthRoutes } from './routes/health.js';

export interface AppOptions {
  store: Store;
  logger: FastifyBaseLogger;
  clock?: Clock;
}

/**
 * One line per request, after the response: method, redacted URL, status and time; never headers. Every
 * failure is logged at info or above, so the `request_id` of any problem body can be looked up. A line per
 * successful read costs a quarter of the read operation's throughput (measured with `npm run bench`), so
 * successes are logged at debug: `LOG_LEVEL=debug` turns on a full access log.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {
    // The completion line carries everything; a second line per request would only double the cost.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const status = reply.statusCode;
    const level = error || status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    const line = {
      method: request.method,
      url: redactBrandKeys(request.url),
      status,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    request.log[level](error ? { ...line, err: error } : line, error ? 'request failed' : 'request');
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** A caller's `X-Request-Id` is kept when it is safe to log; otherwise a fresh UUID. */
function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

export function buildApp({ store, logger, clock = systemClock }: AppOptions): FastifyInstance {
  const app = Fastify({
    loggerInstance: logger,
    logController: new AccessLog({ requestIdLogLabel: 'request_id' }),
    genReqId: requestId,
    forceCloseConnections: 'idle',
  });
  // Only JSON bodies are understood; text/plain would otherwise be parsed into a string.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) =>
    handleError(
      new AppError(
        'not_found',
        `No route ${request.method} ${redactBrandKeys(request.url.split('?')[0] ?? '')}.`,
      ),
      request,
      reply,
    ),
  );

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const reader = new BrandReader(store, clock);
  app.addHook('onClose', (_instance, done) => {
    reader.close();
    done();
  });

  healthRoutes(app, store);
  brandAgentRoutes(app, reader);
  return app;
}
