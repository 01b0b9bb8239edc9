import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/**
 * An onRequest hook giving pages served to browsers (the console, the API reference) their own
 * Content-Security-Policy and the headers every such page gets: never sniffed, never framed, no referrer
 * sent on, its own browsing context. Registered in those scopes only, so the read operation pays nothing.
 */
export function pageSecurityHeaders(contentSecurityPolicy: string) {
  const headers = {
    'content-security-policy': contentSecurityPolicy,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
  return (_request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    reply.headers(headers);
    done();
  };
}
