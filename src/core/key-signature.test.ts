import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { encodeBase62 } from './base62.js';
import { KeySigner, LATEST_SIGNED_EXPIRY } from './key-signature.js';
import { BRAND_KEY } from './secret-keys.js';

const secret = randomBytes(32);
const signer = new KeySigner(BRAND_KEY, 'bk', secret);
const EXPIRES = Date.parse('2027-02-25T10:11:12.345Z');

describe('KeySigner', () => {
  it('issues keys of the format’s shape, with a valid checksum and an id of the kind', () => {
    const { key, id } = signer.issue('ws_one', EXPIRES);
    expect(key).toMatch(/^brk_[0-9A-Za-z]{36}$/);
    expect(BRAND_KEY.formatProblem(key)).toBeUndefined();
    expect(id).toMatch(/^bk_[0-9A-Za-z]{20}$/);
  });

  it('verifies a key for its own workspace: the id it was stored under and its exact expiry', () => {
    const { key, id } = signer.issue('ws_one', EXPIRES);
    expect(signer.verify(key, 'ws_one')).toEqual({ id, expiresAt: EXPIRES });
  });

  it('gives every key its own nonce, id and listing prefix', () => {
    const issued = Array.from({ length: 200 }, () => signer.issue('ws_one', EXPIRES));
    expect(new Set(issued.map(({ id }) => id)).size).toBe(200);
    expect(new Set(issued.map(({ key }) => BRAND_KEY.hint(key).prefix)).size).toBeGreaterThan(150);
  });

  it('refuses a key presented for another workspace', () => {
    const { key } = signer.issue('ws_one', EXPIRES);
    expect(signer.verify(key, 'ws_two')).toBeUndefined();
    expect(signer.verify(key, 'ws_on')).toBeUndefined();
  });

  it('refuses a key signed with another secret', () => {
    const { key } = new KeySigner(BRAND_KEY, 'bk', randomBytes(32)).issue('ws_one', EXPIRES);
    expect(signer.verify(key, 'ws_one')).toBeUndefined();
  });

  it('refuses a key whose expiry was moved, even with its checksum made good again', () => {
    const { key } = signer.issue('ws_one', EXPIRES);
    const later = encodeBase62(EXPIRES + 365 * 24 * 3600 * 1000, 8);
    const moved = BRAND_KEY.withChecksum(key.slice(0, 14) + later + key.slice(22, 34));
    expect(BRAND_KEY.formatProblem(moved)).toBeUndefined();
    expect(signer.verify(moved, 'ws_one')).toBeUndefined();
  });

  it('refuses an unsigned key: the store judges it', () => {
    expect(signer.verify(BRAND_KEY.generate(), 'ws_one')).toBeUndefined();
  });

  it('will not sign an expiry its eight characters cannot say', () => {
    expect(() => signer.issue('ws_one', LATEST_SIGNED_EXPIRY + 1)).toThrow(RangeError);
    expect(() => signer.issue('ws_one', 1.5)).toThrow(RangeError);
    expect(signer.verify(signer.issue('ws_one', LATEST_SIGNED_EXPIRY).key, 'ws_one')?.expiresAt).toBe(
      LATEST_SIGNED_EXPIRY,
    );
  });
});
