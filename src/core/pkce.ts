import { hash, timingSafeEqual } from 'node:crypto';

/* PKCE with S256 only (RFC 7636), as the OAuth server of `/mcp` requires it (docs/oauth.md "Authorization"). */

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const CODE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
/** A SHA-256 digest in base64url without padding: 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export function isS256Challenge(challenge: string): boolean {
  return S256_CHALLENGE.test(challenge);
}

/** PKCE S256 (RFC 7636 §4.6): BASE64URL(SHA256(verifier)) equals the challenge, compared in constant time. */
export function verifiesS256(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER.test(verifier) || !isS256Challenge(challenge)) return false;
  const computed = Buffer.from(hash('sha256', verifier, 'base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
