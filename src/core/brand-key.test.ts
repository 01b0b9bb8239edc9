import { describe, expect, it } from 'vitest';
import {
  BRAND_KEY_LENGTH,
  brandKeyFormatProblem,
  brandKeyHint,
  generateBrandKey,
  hashBrandKey,
  redactBrandKeys,
} from './brand-key.js';

describe('generateBrandKey', () => {
  it('produces brk_ with 30 random and 6 checksum base62 characters', () => {
    const key = generateBrandKey();
    expect(key).toMatch(/^brk_[0-9A-Za-z]{36}$/);
    expect(key).toHaveLength(BRAND_KEY_LENGTH);
  });

  it('produces keys that pass their own checksum', () => {
    for (let i = 0; i < 200; i++) expect(brandKeyFormatProblem(generateBrandKey())).toBeUndefined();
  });

  it('never produces the same key twice', () => {
    expect(new Set(Array.from({ length: 500 }, generateBrandKey)).size).toBe(500);
  });
});

describe('brandKeyFormatProblem', () => {
  it('rejects a key with a single mistyped character as a checksum problem', () => {
    const key = generateBrandKey();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(brandKeyFormatProblem(typo)).toBe('checksum');
  });

  it('rejects a truncated key, another prefix and stray characters as format problems', () => {
    const key = generateBrandKey();
    expect(brandKeyFormatProblem(key.slice(0, -1))).toBe('format');
    expect(brandKeyFormatProblem(`sk_${key.slice(4)}`)).toBe('format');
    expect(brandKeyFormatProblem(`${key.slice(0, -1)}-`)).toBe('format');
    expect(brandKeyFormatProblem('')).toBe('format');
  });
});

describe('hashBrandKey', () => {
  it('is a stable SHA-256 hex digest that does not contain the key', () => {
    const key = generateBrandKey();
    expect(hashBrandKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashBrandKey(key)).toBe(hashBrandKey(key));
    expect(hashBrandKey(key)).not.toContain(key.slice(4));
  });
});

describe('brandKeyHint', () => {
  it('shows the prefix with four random characters and the last four', () => {
    const key = generateBrandKey();
    expect(brandKeyHint(key)).toEqual({ prefix: key.slice(0, 8), last4: key.slice(-4) });
  });
});

describe('redactBrandKeys', () => {
  it('replaces every key embedded in text', () => {
    const key = generateBrandKey();
    expect(redactBrandKeys(`url=/x?k=${key}&y=${key}`)).toBe('url=/x?k=brk_[REDACTED]&y=brk_[REDACTED]');
  });
});
