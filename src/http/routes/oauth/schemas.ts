import { z } from 'zod';

/*
 * The OAuth endpoints are read by OAuth libraries, by the RFCs: they answer protocol errors as RFC 6749 §5.2
 * JSON, and are described in docs/oauth.md rather than the API reference (/openapi.json), whose answers are
 * problem+json.
 */

/** The form parameters of a token or revocation request: names to values, each sent once. */
export const formBodySchema = z.record(z.string(), z.string());

/** No answer of these endpoints may be cached: they carry tokens, or say whether one works (RFC 6749 §5.1). */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' } as const;

/**
 * Browser-based MCP clients (the MCP Inspector) discover, register and get tokens from their own origin: these
 * endpoints answer any origin, and read no cookie, so a page can do nothing here it could not do without a
 * browser.
 */
export const CORS_HEADERS = { 'access-control-allow-origin': '*' } as const;
