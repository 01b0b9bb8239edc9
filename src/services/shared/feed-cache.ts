import { LRUCache } from 'lru-cache';
import type { ChangeFeed, StoreChange } from '../../store/change-feed.js';
import type { CacheStats } from '../metrics/metrics.js';

/** A value now (from a cache) or later (from the database). */
export type MaybePromise<T> = T | Promise<T>;

/** `next` of the value: at once when it is here, after it when it is a promise (nothing waits for a value). */
export function andThen<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Entries are bounded by count, or by a total size each entry's `sizeOf` adds up to. */
export type FeedCacheBound<V> = { maxEntries: number } | { maxSize: number; sizeOf: (value: V) => number };

/** A cache's counts in plain numbers (a request pays an increment), exported by /metrics when scraped. */
export class CacheCounts implements CacheStats {
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(private readonly size: () => number) {}

  get entries(): number {
    return this.size();
  }
}

/**
 * A bounded in-memory cache kept exact by the store's change feed: a change to a workspace evicts that
 * workspace's entries (in this process at once, elsewhere within a second), and while the feed is not live
 * nothing is served from memory.
 */
export class FeedCache<V extends object> {
  private readonly entries: LRUCache<string, V>;
  /** Bumped by every invalidation, so a load that raced with a write does not cache what it read. */
  private generation = 0;
  private readonly unsubscribe: () => void;
  /** Counted in plain numbers (a request pays an increment), exported by /metrics when scraped. */
  readonly stats: CacheStats;

  /** @param workspaceOf the workspace an entry belongs to; without it, entries are keyed by workspace id. */
  constructor(
    private readonly changes: ChangeFeed,
    bound: FeedCacheBound<V>,
    private readonly workspaceOf?: (value: V) => string,
  ) {
    const stats = new CacheCounts(() => this.entries.size);
    this.stats = stats;
    // Only what the bound pushes out: invalidations by the change feed are deletes, not evictions.
    const dispose = (_value: V, _id: string, reason: LRUCache.DisposeReason) => {
      if (reason === 'evict') stats.evictions++;
    };
    this.entries =
      'maxEntries' in bound
        ? new LRUCache({ max: bound.maxEntries, dispose })
        : new LRUCache({ maxSize: bound.maxSize, sizeCalculation: bound.sizeOf, dispose });
    this.unsubscribe = changes.subscribe((change) => {
      this.invalidate(change);
    });
  }

  private invalidate({ workspaceId }: StoreChange): void {
    this.generation++;
    if (workspaceId === null) this.entries.clear();
    else if (this.workspaceOf === undefined) this.entries.delete(workspaceId);
    else
      for (const [id, value] of this.entries.entries())
        if (this.workspaceOf(value) === workspaceId) this.entries.delete(id);
  }

  /**
   * A hit is returned as it is, not wrapped in a promise: on the hot path every await costs (measured: an
   * awaited async lookup per request took a quarter of the read operation's throughput). A miss loads, and
   * caches unless a change arrived meanwhile or the change feed is down.
   */
  get(id: string, load: () => Promise<V | undefined>): V | Promise<V | undefined> {
    const live = this.changes.live;
    const hit = live ? this.entries.get(id) : undefined;
    if (hit) {
      this.stats.hits++;
      return hit;
    }
    this.stats.misses++;
    const generation = this.generation;
    return load().then((value) => {
      if (value && live && generation === this.generation) this.entries.set(id, value);
      return value;
    });
  }

  /**
   * Measures a cached entry again after it grew in place (a brand that rendered one more view), so the size
   * bound stays true; a value no longer cached is left alone.
   */
  remeasure(id: string, value: V): void {
    if (this.entries.peek(id) === value) this.entries.set(id, value);
  }

  /** Forgets one entry at once (a key found to be refused), and anything a load under way would cache. */
  delete(id: string): void {
    this.generation++;
    this.entries.delete(id);
  }

  close(): void {
    this.unsubscribe();
  }
}
