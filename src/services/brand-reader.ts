import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { serializeBrandContext } from '../core/brand-context.js';
import { BRAND_KEY, hashKey } from '../core/secret-keys.js';
import type { Clock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { brandKeyStatus, type BrandKeyTimes, lifecycleTimes } from '../core/key-lifecycle.js';
import type { StoreChange } from '../store/change-feed.js';
import type { BrandKeyRecord, Store } from '../store/store.js';
import type { UsageRecorder } from './usage.js';

/** A value now (from a cache) or later (from the database). */
export type MaybePromise<T> = T | Promise<T>;

/** A verified brand read key as the hot path keeps it: no secret, only what the checks need. */
export interface VerifiedKey extends BrandKeyTimes {
  id: string;
  workspaceId: string;
}

/** A workspace's brand context, serialized once per version and served as these exact bytes. */
export interface ServedBrand {
  body: Buffer;
  etag: string;
}

export interface BrandReaderLimits {
  /** Verified keys kept in memory. */
  maxKeys: number;
  /** Total bytes of serialized brand contexts kept in memory. */
  maxBrandBytes: number;
}

const DEFAULT_LIMITS: BrandReaderLimits = { maxKeys: 10_000, maxBrandBytes: 64 * 1024 * 1024 };

function toVerifiedKey(record: BrandKeyRecord): VerifiedKey {
  return { id: record.id, workspaceId: record.workspaceId, ...lifecycleTimes(record) };
}

/**
 * The read operation's hot path: authenticates brand read keys and serves pre-serialized brand contexts
 * from bounded in-memory caches. The store's change feed evicts entries the moment a key or brand
 * changes (in this process at once, elsewhere within a second); while the feed is not live, nothing is
 * served from memory. Expiry and revocation are judged against the clock on every request, never cached
 * as a verdict.
 */
export class BrandReader {
  private readonly keys: LRUCache<string, VerifiedKey>;
  private readonly brands: LRUCache<string, ServedBrand>;
  /** Bumped by every invalidation, so a load that raced with a write does not cache what it read. */
  private generation = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly usage?: UsageRecorder,
    limits: BrandReaderLimits = DEFAULT_LIMITS,
  ) {
    this.keys = new LRUCache({ max: limits.maxKeys });
    this.brands = new LRUCache({
      maxSize: limits.maxBrandBytes,
      sizeCalculation: (brand) => brand.body.length,
    });
    this.unsubscribe = store.changes.subscribe((change) => {
      this.invalidate(change);
    });
  }

  private invalidate({ workspaceId }: StoreChange): void {
    this.generation++;
    if (workspaceId === null) {
      this.keys.clear();
      this.brands.clear();
      return;
    }
    this.brands.delete(workspaceId);
    for (const [hash, key] of this.keys.entries())
      if (key.workspaceId === workspaceId) this.keys.delete(hash);
  }

  /**
   * A cache hit is returned as it is, not wrapped in a promise: on the hot path every await costs
   * (measured: an awaited async lookup per request took a quarter of the read operation's throughput).
   * A miss loads, and caches unless a change arrived meanwhile or the change feed is down.
   */
  private cached<V extends object>(
    cache: LRUCache<string, V>,
    id: string,
    load: () => Promise<V | undefined>,
  ): V | Promise<V | undefined> {
    const live = this.store.changes.live;
    const hit = live ? cache.get(id) : undefined;
    if (hit) return hit;
    const generation = this.generation;
    return load().then((value) => {
      if (value && live && generation === this.generation) cache.set(id, value);
      return value;
    });
  }

  /**
   * Check 3 of the read operation (README "Errors") for a bearer token: format and checksum first (no database), then status, judged
   * against the clock every time. Synchronous when the key is cached.
   */
  verifyKey(token: string): MaybePromise<VerifiedKey> {
    if (BRAND_KEY.formatProblem(token) !== undefined) {
      throw new AppError('malformed_key', 'The bearer token is not a well-formed brand read key.');
    }
    const hash = hashKey(token);
    const key = this.cached(this.keys, hash, async () => {
      const record = await this.store.findBrandKeyByHash(hash);
      return record && toVerifiedKey(record);
    });
    return key instanceof Promise ? key.then((loaded) => this.judge(loaded)) : this.judge(key);
  }

  private judge(key: VerifiedKey | undefined): VerifiedKey {
    if (!key) throw new AppError('invalid_key', 'The brand read key is not known to this service.');
    const now = this.clock.now();
    switch (brandKeyStatus(key, now)) {
      case 'expired':
        throw new AppError(
          'key_expired',
          `The brand read key expired at ${new Date(key.expiresAt).toISOString()}.`,
        );
      case 'revoked':
        throw new AppError('key_revoked', 'The brand read key has been revoked.');
      case 'active':
        this.usage?.brandKeyUsed(key.id, now);
        return key;
    }
  }

  /** Checks 6-8 of the read operation (README "Errors"): 404 for a workspace that does not exist, 403 for another workspace's key. */
  read(key: Pick<VerifiedKey, 'workspaceId'>, workspaceId: string): MaybePromise<ServedBrand> {
    return key.workspaceId === workspaceId
      ? this.readWorkspace(workspaceId)
      : this.refuseForeign(workspaceId);
  }

  private async refuseForeign(workspaceId: string): Promise<never> {
    const exists = this.brands.has(workspaceId) || (await this.store.getWorkspace(workspaceId)) !== undefined;
    throw exists
      ? new AppError('workspace_forbidden', `This key was not created in workspace ${workspaceId}.`)
      : new AppError('workspace_not_found', `Workspace ${workspaceId} does not exist.`);
  }

  /** The served brand of a workspace whose access the caller has already established. */
  readWorkspace(workspaceId: string): MaybePromise<ServedBrand> {
    const brand = this.cached(this.brands, workspaceId, async () => {
      const context = await this.store.getBrand(workspaceId);
      if (!context) return undefined;
      const body = Buffer.from(serializeBrandContext(context));
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    });
    return brand instanceof Promise ? brand.then((loaded) => this.found(loaded, workspaceId)) : brand;
  }

  private found(brand: ServedBrand | undefined, workspaceId: string): ServedBrand {
    if (!brand) throw new AppError('workspace_not_found', `Workspace ${workspaceId} does not exist.`);
    return brand;
  }

  close(): void {
    this.unsubscribe();
  }
}
