import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import { CONSOLE_ASSETS } from '../services/metrics/metrics.js';
import type { ZodApp } from './context.js';
import { pageSecurityHeaders } from './page-headers.js';

/**
 * The console is a single-page app: the same index.html answers every page path below, and its hashed
 * assets are cached for good. Nothing outside the console gets these headers, so the read operation's
 * hot path pays nothing for them.
 */
const PAGE_PATHS = ['/', '/sign-in', '/accept-invite', '/reset-password', '/connect', '/account/*', '/w/*'];

/** No inline script or style, nothing from elsewhere, never framed: an injected tag cannot run. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "connect-src 'self'",
  // The mailbox frames a captured email's HTML body, served with its own policy (…/content.html).
  "frame-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export function hasConsole(dir: string): boolean {
  return existsSync(join(dir, 'index.html'));
}

/** Serves the built console (`npm run build` writes it to dist/web) from `dir`. */
export async function consoleRoutes(app: ZodApp, dir: string): Promise<void> {
  app.addHook('onRequest', pageSecurityHeaders(CONSOLE_CSP));
  await app.register(fastifyStatic, {
    root: dir,
    index: false,
    cacheControl: false, // set below, per file
    // One route per built file, not a catch-all: unknown paths stay problem+json 404s.
    wildcard: false,
    setHeaders(res, path) {
      res.setHeader(
        'cache-control',
        path.includes(CONSOLE_ASSETS) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  for (const path of PAGE_PATHS) {
    app.get(path, { schema: { hide: true } }, (_request, reply) => reply.sendFile('index.html'));
  }
}
