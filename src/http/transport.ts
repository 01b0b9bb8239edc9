import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type OutgoingHttpHeader,
  type OutgoingHttpHeaders,
  type Server,
  ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type {
  FastifyBaseLogger,
  FastifyError,
  FastifyReply,
  FastifyRequest,
  FastifyServerFactory,
  FastifyServerOptions,
} from 'fastify';
import type { HttpTimeouts } from '../config.js';
import { AppError } from '../core/errors.js';
import { redactKeys } from '../core/secret-keys.js';
import type { Metrics } from '../services/metrics/metrics.js';
import { closingProblem, handleError } from './problem.js';

/** What a client refused during shutdown is told to wait before retrying, in seconds. */
const SHUTDOWN_RETRY_AFTER = '5';
/**
 * After an answer on a raw socket, how long the client's remaining input is still read before the socket is
 * destroyed: closing a socket with unread input resets it, and the client could lose the answer.
 */
const LINGER_MS = 1_000;
/** The longest URL a log line carries. */
const LOGGED_URL_LENGTH = 200;
const DRAIN_POLL_MS = 20;

/** A URL as logs may show it: secrets masked, at most 200 characters. */
export function loggableUrl(url: string): string {
  const redacted = redactKeys(url);
  return redacted.length > LOGGED_URL_LENGTH ? `${redacted.slice(0, LOGGED_URL_LENGTH)}…` : redacted;
}

/**
 * The response Node is writing or about to write on `socket` (`socket._httpMessage`: what Node's own
 * client-error answer checks before writing one), if any.
 */
function pendingResponse(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/**
 * Runs `answer` once the responses to earlier pipelined requests on `socket` have gone out, so an error is never
 * taken for the answer to a request before it. A response whose request is still arriving is the one that
 * failed (a stalled body): it will never go out, and the error answers it.
 */
function afterEarlierResponses(socket: Socket, answer: () => void): void {
  const pending = pendingResponse(socket);
  if (pending && !pending.writableFinished && pending.req.complete) {
    pending.once('finish', () => {
      afterEarlierResponses(socket, answer);
    });
  } else {
    answer();
  }
}

/** Node's parse errors and timeouts as the problems clients are promised; undefined for a broken connection. */
function clientErrorProblem(error: Error & { code?: string; reason?: unknown }): AppError | undefined {
  switch (error.code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('request_timeout');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('headers_too_large');
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new AppError('payload_too_large', { reason: 'chunk_extensions' });
  }
  if (!error.code?.startsWith('HPE_')) return undefined;
  const parserReason = typeof error.reason === 'string' ? error.reason : undefined;
  return new AppError('bad_request', { reason: 'http', parserReason });
}

/** Node's request handler. */
export type RequestHandler = (request: IncomingMessage, response: ServerResponse) => void;

export interface HttpTransport {
  /** Fastify options for the HTTP/1.1 server below the router: timeouts, client errors, shutdown. */
  serverOptions: Pick<
    FastifyServerOptions,
    'serverFactory' | 'clientErrorHandler' | 'frameworkErrors' | 'return503OnClosing'
  >;
  /**
   * Begins shutdown (a preClose hook): requests not yet routed are answered 503 with Connection: close, the
   * in-flight ones finish with Connection: close, and idle keep-alive connections get `drainMs` to send one
   * last request before the server closes them.
   */
  drain(): Promise<void>;
  /**
   * Requests for `path` (any method, with or without a query) go to `handler` from now on, not through the
   * router: the read operation (src/http/routes/brand-agent.ts), which answers each itself.
   */
  answerBelowRouter(path: string, handler: RequestHandler): void;
}

/**
 * Bad URLs and overlong path parameters, which Fastify finds before routing (and before its onRequest hooks):
 * the same problem+json and X-Request-Id as every error, and the access log line and count Fastify does not
 * make for them (route "unmatched").
 */
function frameworkErrorHandler(metrics: Pick<Metrics, 'requestCompleted'> | undefined) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    reply.header('x-request-id', request.id);
    handleError(error, request, reply);
    metrics?.requestCompleted(undefined, request.method, reply.statusCode, reply.elapsedTime);
    request.log.info(
      { method: request.method, url: loggableUrl(request.url), status: reply.statusCode },
      'request',
    );
  };
}

/**
 * The HTTP/1.1 server under Fastify. Everything here runs only on an error, for a CONNECT or an Expect header,
 * or during shutdown: other requests pass straight through to the router, or the one path answered below it.
 */
export function createHttpTransport(
  logger: FastifyBaseLogger,
  timeouts: HttpTimeouts,
  metrics?: Pick<Metrics, 'requestCompleted'>,
): HttpTransport {
  let draining = false;
  let server: Server | undefined;
  let serve: RequestHandler | undefined;
  let below: { path: string; query: string; handler: RequestHandler } | undefined;

  function logAnswer(requestId: string, problem: AppError, request?: IncomingMessage, cause?: string): void {
    logger.info(
      {
        request_id: requestId,
        ...(request && { method: request.method, url: loggableUrl(request.url ?? '') }),
        status: problem.status,
        code: problem.code,
        ...(cause !== undefined && { error: cause }),
      },
      'request',
    );
  }

  /** A problem on a response Node created, for a request Fastify never sees. */
  function answer(request: IncomingMessage, response: ServerResponse, problem: AppError): void {
    const requestId = randomUUID();
    const { status, headers, body } = closingProblem(problem, requestId);
    response.writeHead(status, headers).end(body);
    logAnswer(requestId, problem, request);
  }

  /** A problem written straight to the socket, where there is no response object (parse errors, CONNECT). */
  function answerOnSocket(
    socket: Socket,
    problem: AppError,
    request?: IncomingMessage,
    cause?: string,
  ): void {
    const requestId = randomUUID();
    const { status, headers, body } = closingProblem(problem, requestId);
    const head = [
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`,
      `date: ${new Date().toUTCString()}`,
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    socket.resume();
    const linger = setTimeout(() => socket.destroy(), LINGER_MS);
    socket.once('close', () => {
      clearTimeout(linger);
    });
    logAnswer(requestId, problem, request, cause);
  }

  /** Replaces Fastify's default, which answers plain JSON without Connection: close and logs the raw bytes. */
  function onClientError(error: Error & { code?: string }, socket: Socket): void {
    if (socket.destroyed || socket.writableEnded) return;
    const problem = clientErrorProblem(error);
    // A broken connection has nobody to answer. (A connection timed out before any byte was read still is
    // answered: its request may be waiting unread behind a busy event loop.)
    if (!problem) {
      socket.destroy();
      return;
    }
    afterEarlierResponses(socket, () => {
      if (socket.destroyed || socket.writableEnded) return;
      const failed = pendingResponse(socket)?.req;
      answerOnSocket(socket, problem, failed, error.code);
    });
  }

  /** During shutdown every response closes its connection, in-flight ones included. */
  class DrainingResponse extends ServerResponse {
    override writeHead(
      statusCode: number,
      reasonOrHeaders?: string | OutgoingHttpHeaders | OutgoingHttpHeader[],
      headers?: OutgoingHttpHeaders | OutgoingHttpHeader[],
    ): this {
      if (draining) this.shouldKeepAlive = false;
      return typeof reasonOrHeaders === 'string'
        ? super.writeHead(statusCode, reasonOrHeaders, headers)
        : super.writeHead(statusCode, reasonOrHeaders);
    }
  }

  const serverFactory: FastifyServerFactory = (route) => {
    const created = createServer({
      ServerResponse: DrainingResponse,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      // Node checks the two timeouts every 30 s by default, which would let a stalled client stay 30 s more.
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(timeouts.headersMs / 4)),
      // Checked below instead, so that the 400 is problem+json and logged like every other.
      requireHostHeader: false,
    });
    // A socket silent for this long while a request is being answered is gone (the requests themselves are
    // bounded by requestMs): Fastify's connectionTimeout.
    created.setTimeout(2 * timeouts.requestMs);
    serve = (request, response) => {
      if (request.headers.host === undefined && request.httpVersion === '1.1') {
        answer(request, response, new AppError('bad_request', { reason: 'no_host' }));
      } else if (below && (request.url === below.path || request.url?.startsWith(below.query))) {
        below.handler(request, response);
      } else {
        route(request, response);
      }
    };
    created.on('request', serve);
    created.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) => {
      answer(request, response, new AppError('expectation_failed'));
    });
    created.on('connect', (request: IncomingMessage, socket: Socket) => {
      // Node has handed the socket over: nothing else listens for its errors (a reset) any more.
      socket.on('error', () => undefined);
      afterEarlierResponses(socket, () => {
        answerOnSocket(socket, new AppError('bad_request', { reason: 'connect' }), request);
      });
    });
    server = created;
    return created;
  };

  function refuse(request: IncomingMessage, response: ServerResponse): void {
    answer(
      request,
      response,
      new AppError(
        'service_unavailable',
        { reason: 'shutting_down' },
        { headers: { 'retry-after': SHUTDOWN_RETRY_AFTER } },
      ),
    );
  }

  function openConnections(listening: Server): Promise<number> {
    return new Promise((resolve) => {
      listening.getConnections((error, count) => {
        resolve(error ? 0 : count);
      });
    });
  }

  return {
    serverOptions: {
      serverFactory,
      clientErrorHandler: onClientError,
      frameworkErrors: frameworkErrorHandler(metrics),
      // Requests reaching the router while closing are in flight already: let them finish (drain refuses the rest).
      return503OnClosing: false,
    },
    answerBelowRouter(path, handler) {
      below = { path, query: `${path}?`, handler };
    },
    async drain() {
      if (draining || !server || !serve) return;
      draining = true;
      server.off('request', serve).on('request', refuse);
      const deadline = performance.now() + timeouts.drainMs;
      while (performance.now() < deadline && (await openConnections(server)) > 0) await delay(DRAIN_POLL_MS);
    },
  };
}
