import { LRUCache } from 'lru-cache';
import { type Clock, isoAt } from '../../core/clock.js';
import { KEY_KINDS, type KeyKindId } from '../../core/key-kinds.js';
import { type KeySigners, SIGNED_KINDS, type SignedKeyFacts } from '../../core/key-signature.js';
import { KEY_FORMATS } from '../../core/secret-keys.js';
import type { Store } from '../../store/store.js';
import type { EventRepositories } from '../webhooks/events.js';
import { FeedCache, type MaybePromise } from '../shared/feed-cache.js';
import { recordUnrecordedKey, type UnrecordedKey } from './keys.js';

/**
 * Revoked keys' hashes kept in memory, across the workspaces asked about: about 10 MB. A workspace with more
 * revoked keys than this (unexpired ones) is not kept, and its keys are looked up instead.
 */
const MAX_REVOKED_HASHES = 100_000;

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * How far another node's clock may be ahead of this one's: a key it made may say it expires this much later
 * than its kind's lifetime from now here.
 */
const CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * How long keys verified by signature wait to be confirmed, together, to have a row: the first refusal of an
 * unrecorded key comes this long (plus the change feed's delay elsewhere) after its first use.
 */
const CONFIRM_DELAY_MS = 500;
/** After a failed confirmation, when it is tried again. */
const CONFIRM_RETRY_MS = 5000;
/** Hashes per query of a confirmation. */
const CONFIRM_BATCH = 1000;
/** Keys found without a row that this node refuses on its own while, or if, recording them fails. */
const MAX_UNRECORDED = 10_000;
/**
 * Keys confirmed to have a row, by id, so that a key verified again (the key cache evicted it) is not asked
 * about again: five times the key cache, about 5 MB. Rows are never deleted, so a confirmation stays true.
 */
const MAX_CONFIRMED = 50_000;

/** What verifying by signature counted, for /metrics. */
export interface SignatureStats {
  /** Keys the key cache did not hold that their signature verified, with no lookup. */
  verified: number;
  /** Keys verified by signature that had no row, which this node recorded as revoked (or refused alone). */
  unrecorded: number;
}

/** Where a key found without a row is reported: a warning naming its id, never the key. */
export interface SignedKeysLog {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

/** What confirming keys touches: their rows, and recording those that have none as revoked. */
export type SignedKeysStore = Pick<
  Store,
  'keys' | 'audit' | 'workspaces' | EventRepositories | 'changes' | 'transaction'
>;

interface Unconfirmed extends UnrecordedKey {
  kind: KeyKindId;
}

/**
 * Verifies signed keys without looking them up (docs/keys.md "Brand read keys" and docs/performance.md "Scale, measured"). A signature
 * proves that a holder of the signing secret made the key for the workspace and when it expires; it cannot
 * prove that the key was not revoked since, nor that the service made it (a leaked secret makes keys too). So:
 *
 * - each workspace's revoked keys are asked once and kept in a FeedCache (src/services/shared/feed-cache.ts), which
 *   the change feed keeps exact as it does the key cache: a revocation drops its workspace's entry, here at
 *   once and elsewhere within the feed's delay, and while the feed is not live nothing is verified by
 *   signature;
 * - a key that says it expires later than its kind's lifetime from now is no key the service made;
 * - every key verified by signature is then confirmed, in batches off the read's path, to have a row; one
 *   that has none is recorded as revoked (src/services/keys/keys.ts `recordUnrecordedKey`), which the change feed
 *   carries to every node, and counted and logged.
 *
 * Without a configured secret nothing is verified by signature: keys are looked up as unsigned keys are.
 */
export class SignedKeys {
  /** Each workspace's revoked keys that had not expired when asked, by hash. */
  private readonly revoked: FeedCache<ReadonlySet<string>>;
  /** Keys verified by signature since the last confirmation, by hash. */
  private unconfirmed = new Map<string, Unconfirmed>();
  private confirmTimer: NodeJS.Timeout | undefined;
  private confirming: Promise<void> | undefined;
  /** Ids of keys known to have a row. */
  private readonly confirmed = new LRUCache<string, true>({ max: MAX_CONFIRMED });
  /** Keys found without a row: refused here at once, whether or not recording them succeeded. */
  private readonly unrecorded = new LRUCache<string, true>({ max: MAX_UNRECORDED });
  private closed = false;
  readonly stats: SignatureStats = { verified: 0, unrecorded: 0 };

  /** @param refused told of each key found without a row, so that no cache keeps serving it. */
  constructor(
    private readonly store: SignedKeysStore,
    private readonly clock: Clock,
    private readonly signers: KeySigners,
    private readonly log: SignedKeysLog,
    private readonly refused: (keyHash: string) => void = () => undefined,
  ) {
    this.revoked = new FeedCache(store.changes, {
      maxSize: MAX_REVOKED_HASHES,
      sizeOf: (hashes) => hashes.size + 1,
    });
  }

  /** Whether a key of `kind` may be verified by its signature now: else it is not worth waiting for its workspace. */
  ready(kind: KeyKindId): boolean {
    return this.signers[kind] !== undefined && this.store.changes.live;
  }

  /**
   * What a key of `kind` proves by its signature for `workspaceId`, when that settles it: signed for that
   * workspace, active at `now`, made at most its kind's lifetime ago, not found without a row, and not among
   * the workspace's revoked keys (asked of the store the first time). Anything else is the store's to judge:
   * an expired key answers `key_revoked` if it was also revoked, and revocations are only kept until their
   * key expires.
   */
  verify(
    kind: KeyKindId,
    token: string,
    keyHash: string,
    workspaceId: string,
    now: number,
  ): MaybePromise<SignedKeyFacts | undefined> {
    const facts = this.ready(kind) ? this.signers[kind]?.verify(token, workspaceId) : undefined;
    if (facts === undefined || now >= facts.expiresAt || this.unrecorded.has(keyHash)) return undefined;
    const lifetimeDays = KEY_KINDS[kind].lifetimeDays ?? 0;
    if (facts.expiresAt > now + lifetimeDays * DAY_MS + CLOCK_SKEW_MS) return undefined;
    const settle = (revoked: ReadonlySet<string> | undefined): SignedKeyFacts | undefined => {
      if (revoked === undefined || revoked.has(keyHash)) return undefined;
      this.stats.verified++;
      if (!this.confirmed.has(facts.id))
        this.confirmLater({
          kind,
          id: facts.id,
          workspaceId,
          keyHash,
          ...KEY_FORMATS[kind].hint(token),
          expiresAt: facts.expiresAt,
        });
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

  private confirmLater(key: Unconfirmed): void {
    this.unconfirmed.set(key.keyHash, key);
    this.scheduleConfirmation(CONFIRM_DELAY_MS);
  }

  private scheduleConfirmation(delayMs: number): void {
    if (this.confirmTimer !== undefined || this.closed || this.unconfirmed.size === 0) return;
    this.confirmTimer = setTimeout(() => {
      this.confirmTimer = undefined;
      // One confirmation at a time: keys verified meanwhile wait for the next, scheduled as it ends.
      this.confirming ??= this.confirm().finally(() => {
        this.confirming = undefined;
        this.scheduleConfirmation(CONFIRM_DELAY_MS);
      });
    }, delayMs);
    this.confirmTimer.unref();
  }

  /** Confirms the keys verified since the last time, one query per batch of hashes per kind. */
  private async confirm(): Promise<void> {
    const keys = [...this.unconfirmed.values()];
    this.unconfirmed = new Map();
    const retry: Unconfirmed[] = [];
    for (let start = 0; start < keys.length; start += CONFIRM_BATCH) {
      const batch = keys.slice(start, start + CONFIRM_BATCH);
      for (const kind of SIGNED_KINDS) {
        const ofKind = batch.filter((key) => key.kind === kind);
        if (ofKind.length === 0) continue;
        try {
          const found = await this.store.keys.findByHashes(
            kind,
            ofKind.map((key) => key.keyHash),
          );
          const recorded = new Set(found.map((key) => key.keyHash));
          for (const key of ofKind) {
            if (recorded.has(key.keyHash)) this.confirmed.set(key.id, true);
            else retry.push(...(await this.refuse(key)));
          }
        } catch (error) {
          if (this.closed) return;
          this.log.error({ err: error }, 'could not confirm that keys verified by signature have rows');
          retry.push(...ofKind);
        }
      }
    }
    if (this.closed || retry.length === 0) return;
    for (const key of retry) this.unconfirmed.set(key.keyHash, key);
    this.scheduleConfirmation(CONFIRM_RETRY_MS);
  }

  /** Refuses a key found without a row, here at once and, once recorded, everywhere; what to try again. */
  private async refuse(key: Unconfirmed): Promise<Unconfirmed[]> {
    this.unrecorded.set(key.keyHash, true);
    this.refused(key.keyHash);
    const { kind, ...unrecorded } = key;
    let outcome: Awaited<ReturnType<typeof recordUnrecordedKey>>;
    try {
      outcome = await recordUnrecordedKey(kind, { store: this.store, clock: this.clock }, unrecorded);
    } catch (error) {
      if (this.closed) return [];
      this.log.error({ err: error, key_id: key.id }, 'could not record a key that has no row as revoked');
      return [key];
    }
    // Counted and reported once, by the node that recorded it (or, with no workspace, by each that refuses it).
    if (outcome === 'exists') return [];
    this.stats.unrecorded++;
    this.log.warn(
      {
        key_id: key.id,
        workspace_id: key.workspaceId,
        expires_at: new Date(key.expiresAt).toISOString(),
      },
      outcome === 'recorded'
        ? `a ${KEY_KINDS[kind].label} with a valid signature had no row: it is now listed as revoked and refused on every node; its signing secret may have leaked (docs/keys.md "Brand read keys")`
        : `a ${KEY_KINDS[kind].label} with a valid signature names a workspace that does not exist: refused; its signing secret may have leaked (docs/keys.md "Brand read keys")`,
    );
    return [];
  }

  /** Stops confirming; a confirmation under way is let finish (keys not yet confirmed are confirmed when next verified). */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.confirmTimer);
    this.revoked.close();
    await this.confirming;
  }
}
