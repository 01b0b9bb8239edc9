import { describe, expect, it } from 'vitest';
import {
  BRAND_KEY,
  hashKey,
  type KeyFormat,
  looksLikeJwt,
  redactKeys,
  WORKSPACE_API_KEY,
} from './secret-keys.js';

describe.each([
  ['brand read keys', BRAND_KEY, 'brk_'],
  ['workspace API keys', WORKSPACE_API_KEY, 'wsk_'],
] as [string, KeyFormat, string][])('%s', (_name, format, prefix) => {
  it(`are ${prefix} with 30 random and 6 checksum base62 characters`, () => {
    const key = format.generate();
    expect(key).toMatch(new RegExp(`^${prefix}[0-9A-Za-z]{36}$`));
    expect(key).toHaveLength(format.length);
  });

  it('pass their own checksum', () => {
    for (let i = 0; i < 200; i++) expect(format.formatProblem(format.generate())).toBeUndefined();
  });

  it('are never the same twice', () => {
    expect(new Set(Array.from({ length: 500 }, () => format.generate())).size).toBe(500);
  });

  it('reject a single mistyped character as a checksum problem', () => {
    const key = format.generate();
    const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
    expect(format.formatProblem(typo)).toBe('checksum');
  });

  it('reject a truncated key, another prefix and stray characters as format problems', () => {
    const key = format.generate();
    expect(format.formatProblem(key.slice(0, -1))).toBe('format');
    expect(format.formatProblem(`sk_${key.slice(4)}`)).toBe('format');
    expect(format.formatProblem(`${key.slice(0, -1)}-`)).toBe('format');
    expect(format.formatProblem('')).toBe('format');
  });

  it('are shown in listings as the prefix with four random characters and the last four', () => {
    const key = format.generate();
    expect(format.hint(key)).toEqual({ prefix: key.slice(0, 8), last4: key.slice(-4) });
  });
});

it('tells the two kinds apart: a workspace API key is no brand read key, and back', () => {
  expect(BRAND_KEY.formatProblem(WORKSPACE_API_KEY.generate())).toBe('format');
  expect(WORKSPACE_API_KEY.formatProblem(BRAND_KEY.generate())).toBe('format');
});

describe('hashKey', () => {
  it('is a stable SHA-256 hex digest that does not contain the key', () => {
    const key = BRAND_KEY.generate();
    expect(hashKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashKey(key)).toBe(hashKey(key));
    expect(hashKey(key)).not.toContain(key.slice(4));
  });
});

describe('redactKeys', () => {
  it('replaces every key of either kind embedded in text', () => {
    const [brand, api] = [BRAND_KEY.generate(), WORKSPACE_API_KEY.generate()];
    expect(redactKeys(`url=/x?k=${brand}&y=${api}`)).toBe('url=/x?k=brk_[REDACTED]&y=wsk_[REDACTED]');
  });

  it('masks a key after a letter, a digit, an underscore or a percent-encoded space', () => {
    const key = BRAND_KEY.generate();
    for (const before of ['a', '7', '_', 'Bearer%20', '%22'])
      expect(redactKeys(`?auth=${before}${key}&x=1`)).toBe(`?auth=${before}brk_[REDACTED]&x=1`);
  });

  it('masks a key whose underscore is percent-encoded', () => {
    const key = WORKSPACE_API_KEY.generate();
    expect(redactKeys(`/x/${key.replace('_', '%5F')}`)).toBe('/x/wsk_[REDACTED]');
  });

  it('leaves a key as listings show it (its prefix, 4 characters and …), which is no secret', () => {
    const key = WORKSPACE_API_KEY.generate();
    const { prefix, last4 } = WORKSPACE_API_KEY.hint(key);
    expect(redactKeys(`The workspace API key ${prefix}… expired.`)).toBe(
      `The workspace API key ${prefix}… expired.`,
    );
    expect(redactKeys(`${prefix}…${last4}`)).toBe(`${prefix}…${last4}`);
    // Anything longer before the … is more than a listing shows, and is masked.
    expect(redactKeys(`${key.slice(0, 9)}…`)).toBe('wsk_[REDACTED]…');
    expect(redactKeys(`${key}…`)).toBe('wsk_[REDACTED]…');
  });

  it("masks the tokens of account links, base64url's - and _ included", () => {
    const invite = `bci_${'a-b_'.repeat(10)}xyz`;
    expect(redactKeys(`/accept-invite?token=${invite}&x=1`)).toBe('/accept-invite?token=bci_[REDACTED]&x=1');
    expect(redactKeys('{"token":"bcr_Zm9v-YmFy_YmF6"}')).toBe('{"token":"bcr_[REDACTED]"}');
  });

  it('masks user tokens (JWTs)', () => {
    expect(redactKeys('t=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln&x=1')).toBe('t=[REDACTED_TOKEN]&x=1');
  });
});

describe('looksLikeJwt', () => {
  it('tells a three-part token from keys and other text', () => {
    expect(looksLikeJwt('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl')).toBe(true);
    expect(looksLikeJwt(BRAND_KEY.generate())).toBe(false);
    expect(looksLikeJwt('a.b')).toBe(false);
    expect(looksLikeJwt('a.b.c d')).toBe(false);
  });
});
