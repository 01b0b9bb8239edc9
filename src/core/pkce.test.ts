import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isS256Challenge, verifiesS256 } from './pkce.js';

/** A verifier and its S256 challenge: BASE64URL(SHA256(verifier)), as a client computes it. */
const VERIFIER = 'dBjftJeZ4CVP-mJ92K1CG2m10uZNNjRkamW3pmBYOiA';
const CHALLENGE = 'BFxFpIQDAwB_fva_Nc0KfCzI3J-9Rznvdoz3nyj5SU8';

describe('verifiesS256', () => {
  it('verifies a verifier against its challenge, as a client computes it', () => {
    expect(createHash('sha256').update(VERIFIER).digest('base64url')).toBe(CHALLENGE);
    expect(isS256Challenge(CHALLENGE)).toBe(true);
    expect(verifiesS256(VERIFIER, CHALLENGE)).toBe(true);
  });

  it('refuses another verifier, a verifier used as its own challenge (plain), and malformed verifiers', () => {
    const other = 'x'.repeat(43);
    expect(verifiesS256(other, CHALLENGE)).toBe(false);
    expect(verifiesS256(other, other)).toBe(false);
    expect(verifiesS256('short', createHash('sha256').update('short').digest('base64url'))).toBe(false);
    const tooLong = 'a'.repeat(129);
    expect(verifiesS256(tooLong, createHash('sha256').update(tooLong).digest('base64url'))).toBe(false);
    const spaced = `${'a'.repeat(42)} b`;
    expect(verifiesS256(spaced, createHash('sha256').update(spaced).digest('base64url'))).toBe(false);
  });

  it('takes only 43-character base64url challenges', () => {
    expect(isS256Challenge(`${CHALLENGE}=`)).toBe(false);
    expect(isS256Challenge(CHALLENGE.replace('-', '+'))).toBe(false);
  });
});
