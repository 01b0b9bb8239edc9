import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A caller's `X-Request-Id` is kept only in the shapes load balancers and proxies generate (a UUID; nginx's and
 * others' 16-64 hex digits), which no secret of this service has and which cannot forge a log line; anything
 * else is replaced by a fresh UUID.
 */
const REQUEST_ID =
  /^(?:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{16,64})$/;

/** The id of a request, answered in X-Request-Id and named in its log lines and problems. */
export function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}
