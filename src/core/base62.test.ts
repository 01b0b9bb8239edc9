import { describe, expect, it } from 'vitest';
import { decodeBase62, encodeBase62, newId, randomBase62 } from './base62.js';

describe('randomBase62', () => {
  it('returns exactly the requested number of base62 characters', () => {
    for (const length of [1, 6, 30, 64])
      expect(randomBase62(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
  });

  it('does not repeat itself', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => randomBase62(20)));
    expect(seen.size).toBe(1000);
  });

  it('uses the whole alphabet', () => {
    expect(new Set(randomBase62(5000)).size).toBe(62);
  });
});

describe('encodeBase62', () => {
  it('encodes zero and pads to the width', () => {
    expect(encodeBase62(0, 6)).toBe('000000');
    expect(encodeBase62(61, 2)).toBe('0z');
    expect(encodeBase62(62, 2)).toBe('10');
  });

  it('fits the largest CRC32 value in six characters', () => {
    expect(encodeBase62(0xffffffff, 6)).toHaveLength(6);
  });
});

describe('newId', () => {
  it('prefixes the random part', () => {
    expect(newId('ws')).toMatch(/^ws_[0-9A-Za-z]{20}$/);
    expect(newId('kb', 12)).toMatch(/^kb_[0-9A-Za-z]{12}$/);
  });
});

describe('decodeBase62', () => {
  it('reads back what encodeBase62 wrote, padding included', () => {
    for (const value of [0, 61, 62, 0xffffffff, 62 ** 8 - 1])
      expect(decodeBase62(encodeBase62(value, 8))).toBe(value);
  });

  it('refuses a character outside the alphabet', () => {
    expect(() => decodeBase62('ab-c')).toThrow(RangeError);
  });
});
