import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { encodeBase62, randomBase62 } from './base62.js';

/**
 * Brand read keys have GitHub's token shape: a fixed prefix, 30 random base62 characters and a 6-character
 * base62 CRC32 of everything before it. Secret scanners can recognise the prefix, and a mistyped key is
 * rejected from its checksum alone, without touching the database.
 */
export const BRAND_KEY_PREFIX = 'brk_';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;
export const BRAND_KEY_LENGTH = BRAND_KEY_PREFIX.length + RANDOM_LENGTH + CHECKSUM_LENGTH;

const BRAND_KEY_SHAPE = /^brk_[0-9A-Za-z]{36}$/;
const BRAND_KEY_PATTERN = /brk_[0-9A-Za-z]{36}/g;

/** Replaces anything shaped like a brand read key in `text`: for logs and error details that echo input. */
export function redactBrandKeys(text: string): string {
  return text.replace(BRAND_KEY_PATTERN, 'brk_[REDACTED]');
}

function checksum(body: string): string {
  return encodeBase62(crc32(body), CHECKSUM_LENGTH);
}

export function generateBrandKey(): string {
  const body = BRAND_KEY_PREFIX + randomBase62(RANDOM_LENGTH);
  return body + checksum(body);
}

export type BrandKeyFormatProblem = 'format' | 'checksum';

/** Why `token` cannot be a brand read key, or undefined when it is well formed. */
export function brandKeyFormatProblem(token: string): BrandKeyFormatProblem | undefined {
  if (!BRAND_KEY_SHAPE.test(token)) return 'format';
  const body = token.slice(0, -CHECKSUM_LENGTH);
  return checksum(body) === token.slice(-CHECKSUM_LENGTH) ? undefined : 'checksum';
}

/** The only form in which a key is stored. A 178-bit random secret needs no slow hash. */
export function hashBrandKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** What listings show instead of the secret: `brk_` plus the first 4 random characters, and the last 4. */
export function brandKeyHint(key: string): { prefix: string; last4: string } {
  return { prefix: key.slice(0, BRAND_KEY_PREFIX.length + 4), last4: key.slice(-4) };
}
