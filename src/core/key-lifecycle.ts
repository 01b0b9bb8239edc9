import { KEY_KINDS } from './key-kinds.js';

/** A brand read key expires 90 days after creation (docs/keys.md "Brand read keys"). */
export const BRAND_KEY_LIFETIME_MS = KEY_KINDS.brand.lifetimeDays * 24 * 60 * 60 * 1000;

/** Where a key (or personal access token) is in its life, in the order it lives it. */
export const KEY_STATUSES = ['active', 'expired', 'revoked'] as const;
export type BrandKeyStatus = (typeof KEY_STATUSES)[number];

export interface BrandKeyTimes {
  expiresAt: number;
  revokedAt: number | null;
}

/** The stored ISO timestamps of a key (or personal access token) as the lifecycle reads them. */
export function lifecycleTimes(stored: {
  expiresAt: string | null;
  revokedAt: string | null;
}): BrandKeyTimes {
  return {
    // A key without an expiry (a transactional email key, unless the operator gave it one) never reaches it.
    expiresAt: stored.expiresAt === null ? Number.POSITIVE_INFINITY : Date.parse(stored.expiresAt),
    revokedAt: stored.revokedAt === null ? null : Date.parse(stored.revokedAt),
  };
}

/**
 * The state of a key at `now` (personal access tokens follow the same lifecycle). Revocation is a fact, not a
 * time: a revoked key is revoked at once on every node, whatever the revoking process's clock wrote into
 * `revokedAt` (docs/postgresql.md "Time on several nodes"). It wins over expiry (an expired key may still be revoked, and
 * then reads as revoked); expiry is reached at the exact expiry instant of the judging node's clock.
 */
export function brandKeyStatus(key: BrandKeyTimes, now: number): BrandKeyStatus {
  if (key.revokedAt !== null) return 'revoked';
  if (now >= key.expiresAt) return 'expired';
  return 'active';
}
