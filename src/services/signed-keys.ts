import { randomBytes } from 'node:crypto';
import { type Clock, isoAt } from '../core/clock.js';
import { KEY_KIND_LIST, KEY_KINDS, type KeyKindId } from '../core/key-kinds.js';
import { KeySigner, type SignedKeyFacts } from '../core/key-signature.js';
import { KEY_FORMATS } from '../core/secret-keys.js';
import type { Repositories, Store } from '../store/store.js';
import { FeedCache, type MaybePromise } from './feed-cache.js';

/**
 * The kinds whose keys are signed: those the read operation caches, whose creation and revocation the change
 * feed announces (src/core/key-kinds.ts `cached`).
 */
const SIGNED_KINDS: readonly KeyKindId[] = KEY_KIND_LIST.filter((kind) => kind.cached).map((kind) => kind.id);

/**
 * Where the signing secret is kept: made once, in the database's settings, so that every node and the CLI sign
 * and verify alike (README "Brand read keys"). Whoever reads it can make keys, as with the session secret kept
 * beside it.
 */
const SIGNING_SECRET_SETTING = 'key_signing_secret';

/**
 * Revoked keys' hashes kept in memory, across the workspaces asked about: about 10 MB. A workspace with more
 * revoked keys than this (unexpired ones) is not kept, and its keys are looked up instead.
 */
const MAX_REVOKED_HASHES = 100_000;

/** The signer of a kind's new keys, or undefined for a kind whose keys are not signed. */
export async function loadKeySigner(
  store: Pick<Repositories, 'settings'>,
  kind: KeyKindId,
): Promise<KeySigner | undefined> {
  if (!SIGNED_KINDS.includes(kind)) return undefined;
  const secret = await store.settings.getOrCreate(SIGNING_SECRET_SETTING, randomBytes(32).toString('base64'));
  return new KeySigner(KEY_FORMATS[kind], KEY_KINDS[kind].idPrefix, Buffer.from(secret, 'base64'));
}

/** What verifying by signature counted, for /metrics. */
export interface SignatureStats {
  /** Keys the key cache did not hold that their signature verified, with no lookup. */
  verified: number;
}

/**
 * Verifies signed keys without looking them up (README "Brand read keys" and "Scale, measured"). A signature
 * proves that this service made the key for the workspace and when it expires; what it cannot prove is that
 * the key was not revoked since. So each workspace's revoked keys are asked once and kept in a FeedCache
 * (src/services/feed-cache.ts), which the change feed keeps exact as it does the key cache: a revocation
 * drops its workspace's entry, here at once and elsewhere within the feed's delay, and while the feed is not
 * live nothing is verified by signature. Until the signing secret is read, keys are looked up as unsigned
 * keys are.
 */
export class SignedKeys {
  private readonly signers: Partial<Record<KeyKindId, KeySigner>> = {};
  /** Reading the signing secret, until it is read; a failed read is tried again by the next key. */
  private loadingSigners: Promise<void> | undefined;
  /** Each workspace's revoked keys that had not expired when asked, by hash. */
  private readonly revoked: FeedCache<ReadonlySet<string>>;
  readonly stats: SignatureStats = { verified: 0 };

  constructor(
    private readonly store: Pick<Store, 'keys' | 'settings' | 'changes'>,
    private readonly clock: Clock,
  ) {
    this.revoked = new FeedCache(store.changes, {
      maxSize: MAX_REVOKED_HASHES,
      sizeOf: (hashes) => hashes.size + 1,
    });
    this.loadSigners();
  }

  private loadSigners(): void {
    this.loadingSigners ??= Promise.all(
      SIGNED_KINDS.map(async (kind) => {
        this.signers[kind] = await loadKeySigner(this.store, kind);
      }),
    ).then(
      () => undefined,
      () => {
        this.loadingSigners = undefined;
      },
    );
  }

  /** Whether a key of `kind` may be verified by its signature now: else it is not worth waiting for its workspace. */
  ready(kind: KeyKindId): boolean {
    if (this.signers[kind] !== undefined) return this.store.changes.live;
    this.loadSigners();
    return false;
  }

  /**
   * What a key of `kind` proves by its signature for `workspaceId`, when that settles it: signed here for that
   * workspace, active at `now`, and not among the workspace's revoked keys (asked of the store the first time).
   * Anything else is the store's to judge: an expired key answers `key_revoked` if it was also revoked, and
   * revocations are only kept until their key expires.
   */
  verify(
    kind: KeyKindId,
    token: string,
    keyHash: string,
    workspaceId: string,
    now: number,
  ): MaybePromise<SignedKeyFacts | undefined> {
    const facts = this.ready(kind) ? this.signers[kind]?.verify(token, workspaceId) : undefined;
    if (facts === undefined || now >= facts.expiresAt) return undefined;
    const settle = (revoked: ReadonlySet<string> | undefined): SignedKeyFacts | undefined => {
      if (revoked === undefined || revoked.has(keyHash)) return undefined;
      this.stats.verified++;
      return facts;
    };
    const revoked = this.revoked.get(workspaceId, () => this.revokedIn(workspaceId));
    // A failed load settles nothing: the key is looked up, and the next key of the workspace asks again.
    return revoked instanceof Promise ? revoked.then(settle, () => undefined) : settle(revoked);
  }

  private async revokedIn(workspaceId: string): Promise<ReadonlySet<string>> {
    const expiringAfter = isoAt(this.clock);
    const lists = await Promise.all(
      SIGNED_KINDS.map((kind) => this.store.keys.revokedHashes(kind, workspaceId, expiringAfter)),
    );
    return new Set(lists.flat());
  }

  close(): void {
    this.revoked.close();
  }
}
