import { randomBytes } from 'node:crypto';

export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** The largest multiple of 62 that fits in a byte: bytes at or above it are discarded to avoid modulo bias. */
const UNBIASED_LIMIT = 62 * 4;

/** `length` uniformly random base62 characters from the operating system's CSPRNG. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < UNBIASED_LIMIT) out += BASE62_ALPHABET.charAt(byte % 62);
      if (out.length === length) break;
    }
  }
  return out;
}

/** A non-negative integer in base62, left-padded with zeros to `width` characters. */
export function encodeBase62(value: number, width: number): string {
  let out = '';
  let rest = value;
  do {
    out = BASE62_ALPHABET.charAt(rest % 62) + out;
    rest = Math.floor(rest / 62);
  } while (rest > 0);
  return out.padStart(width, '0');
}

/** Each ASCII character's base62 digit, -1 for the rest. */
const DIGIT_OF = new Int8Array(128).fill(-1);
for (let digit = 0; digit < 62; digit++) DIGIT_OF[BASE62_ALPHABET.charCodeAt(digit)] = digit;

/** The value of a base62 numeral (at most 8 characters, so that it stays an exact integer). */
export function decodeBase62(text: string): number {
  let value = 0;
  for (let at = 0; at < text.length; at++) {
    const digit = DIGIT_OF[text.charCodeAt(at)] ?? -1;
    if (digit < 0) throw new RangeError(`not a base62 digit: ${text.charAt(at)}`);
    value = value * 62 + digit;
  }
  return value;
}

/** An opaque, unguessable identifier such as `ws_3kTq…`. */
export function newId(prefix: string, length = 20): string {
  return `${prefix}_${randomBase62(length)}`;
}
