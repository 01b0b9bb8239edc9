import { describe, expect, it } from 'vitest';
import { BRAND_KEY_LIFETIME_MS, brandKeyStatus, lifecycleTimes } from './key-lifecycle.js';

const created = Date.UTC(2026, 0, 1);
const key = { expiresAt: created + BRAND_KEY_LIFETIME_MS, revokedAt: null };

describe('brandKeyStatus', () => {
  it('is active from creation until just before 90 days have passed', () => {
    expect(BRAND_KEY_LIFETIME_MS).toBe(7_776_000_000);
    expect(brandKeyStatus(key, created)).toBe('active');
    expect(brandKeyStatus(key, key.expiresAt - 1)).toBe('active');
  });

  it('is expired from the 90-day mark on', () => {
    expect(brandKeyStatus(key, key.expiresAt)).toBe('expired');
    expect(brandKeyStatus(key, key.expiresAt + 365 * 86_400_000)).toBe('expired');
  });

  it('is revoked once revoked, whether it was active or expired', () => {
    expect(brandKeyStatus({ ...key, revokedAt: created + 1000 }, created + 1000)).toBe('revoked');
    const revokedAfterExpiry = { ...key, revokedAt: key.expiresAt + 5 };
    expect(brandKeyStatus(revokedAfterExpiry, key.expiresAt + 5)).toBe('revoked');
  });

  it('is revoked at once even when the revoking clock ran ahead of the judging one', () => {
    // Revoked by a process whose clock was 10 s fast, judged by one that is right.
    expect(brandKeyStatus({ ...key, revokedAt: created + 10_000 }, created)).toBe('revoked');
  });
});

describe('lifecycleTimes', () => {
  it('reads stored ISO timestamps, a missing revocation as null', () => {
    expect(lifecycleTimes({ expiresAt: '2026-01-01T00:00:00.000Z', revokedAt: null })).toEqual({
      expiresAt: Date.UTC(2026, 0, 1),
      revokedAt: null,
    });
    expect(
      lifecycleTimes({ expiresAt: '2026-01-01T00:00:00.000Z', revokedAt: '2025-12-01T00:00:00.000Z' })
        .revokedAt,
    ).toBe(Date.UTC(2025, 11, 1));
  });
});
