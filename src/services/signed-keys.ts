import { randomBytes } from 'node:crypto';
import { type Clock, isoAt } from '../core/clock.js';
import { KEY_KIND_LIST, KEY_KINDS, type KeyKindId } from '../core/key-kinds.js';
import { KeySigner, type SignedKeyFacts } from '../core/key-signature.js';
import { KEY_FORMATS } from '../core/secret-keys.js';
import type { Repositories, Store } from '../store/store.js';

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
export const SIGNING_SECRET_SETTING = 'key_signing_secret';

/** After a failed load of the revocations, the next try. */
const RETRY_MS = 1000;

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
 * Verifies signed keys without the store (README "Brand read keys" and "Scale, measured"). A
 * signature proves that this service made the key for the workspace and when it expires; what it cannot prove
 * is that the key was not revoked since. So the hashes of revoked keys are held here, loaded at start and, for
 * a workspace, again after each change the feed reports for it. Until a workspace's are loaded, and whenever
 * the feed is not live, its keys go to the store as unsigned keys do: a revocation takes effect on the next
 * request here, and elsewhere within the feed's delay, exactly as with the key cache.
 */
export class SignedKeys {
  private readonly signers: Partial<Record<KeyKindId, KeySigner>> = {};
  /** Hashes of revoked keys that had not expired when loaded. Revocation is final: nothing is ever taken out. */
  private readonly revoked = new Set<string>();
  /** Workspaces whose newest revocations may not be held yet, each with the mark of its pending load. */
  private readonly stale = new Map<string, number>();
  /** The mark of a pending load of every workspace's revocations; undefined once one has succeeded. */
  private allStale: number | undefined;
  private marks = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;
  readonly stats: SignatureStats = { verified: 0 };

  constructor(
    private readonly store: Pick<Store, 'keys' | 'settings' | 'changes'>,
    private readonly clock: Clock,
  ) {
    this.unsubscribe = store.changes.subscribe(({ workspaceId }) => {
      this.changed(workspaceId);
    });
    this.changed(null);
  }

  /** Whether a key of `kind` may be verified by its signature now: else it is not worth waiting for its workspace. */
  ready(kind: KeyKindId): boolean {
    return this.signers[kind] !== undefined && this.allStale === undefined && this.store.changes.live;
  }

  /**
   * What a key of `kind` proves by its signature for `workspaceId`, when that settles it: signed here for that
   * workspace, active at `now`, and not among the revoked. Anything else is the store's to judge (an expired
   * key answers `key_revoked` if it was revoked, which only the store knows once its revocation is shed).
   */
  verify(
    kind: KeyKindId,
    token: string,
    keyHash: string,
    workspaceId: string,
    now: number,
  ): SignedKeyFacts | undefined {
    const signer = this.signers[kind];
    if (signer === undefined || !this.ready(kind) || this.stale.has(workspaceId) || this.revoked.has(keyHash))
      return undefined;
    const facts = signer.verify(token, workspaceId);
    if (facts === undefined || now >= facts.expiresAt) return undefined;
    this.stats.verified++;
    return facts;
  }

  /** A workspace's keys changed (null: anything may have): its revocations are loaded again. */
  private changed(workspaceId: string | null): void {
    const mark = ++this.marks;
    if (workspaceId === null) this.allStale = mark;
    else this.stale.set(workspaceId, mark);
    const expiringAfter = isoAt(this.clock);
    Promise.all(
      SIGNED_KINDS.map(async (kind) => {
        const hashes = await this.store.keys.revokedHashes(kind, {
          ...(workspaceId !== null && { workspaceId }),
          expiringAfter,
        });
        // The secret comes with the first load of everything that succeeds: until then no key is verified here.
        if (workspaceId === null) this.signers[kind] ??= await loadKeySigner(this.store, kind);
        return hashes;
      }),
    ).then(
      (lists) => {
        for (const hash of lists.flat()) this.revoked.add(hash);
        this.loaded(workspaceId, mark);
      },
      () => {
        // Whatever was stale stays so, its keys going to the store, until a load of everything succeeds.
        if (this.closed || this.retry !== undefined) return;
        this.retry = setTimeout(() => {
          this.retry = undefined;
          this.changed(null);
        }, RETRY_MS);
        this.retry.unref();
      },
    );
  }

  /**
   * The load marked `mark` succeeded. It read every revocation committed before it began, so it settles the
   * changes reported before it: of its workspace, or (a load of everything) of every workspace.
   */
  private loaded(workspaceId: string | null, mark: number): void {
    if (workspaceId !== null) {
      if (this.stale.get(workspaceId) === mark) this.stale.delete(workspaceId);
      return;
    }
    if (this.allStale === mark) this.allStale = undefined;
    for (const [workspace, pending] of this.stale) if (pending < mark) this.stale.delete(workspace);
  }

  close(): void {
    this.closed = true;
    this.unsubscribe();
    clearTimeout(this.retry);
  }
}
