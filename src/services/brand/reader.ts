import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { type BrandContext, serializeBrandContext } from '../../core/brand-context.js';
import {
  type BrandView,
  renderBrandView,
  VIEW_CONTENT_TYPES,
  WHOLE_BRAND_JSON,
} from '../../core/brand-views.js';
import { AppError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import { CacheCounts, FeedCache, type MaybePromise } from '../shared/feed-cache.js';
import type { CacheStats } from '../metrics/metrics.js';

/** One view of a workspace's brand, rendered once per version and served as these exact bytes. */
export interface ServedBrand {
  body: Buffer;
  etag: string;
  contentType: string;
  /** The brand's version, as the Brand-Version header carries it. */
  version: string;
}

/** A cached brand: its context, its whole JSON, and the other views asked so far (at most MAX_VIEWS, oldest dropped). */
interface CachedBrand {
  context: BrandContext;
  /** The whole brand as JSON, apart: the answer to nearly every read, served without a lookup. */
  whole: ServedBrand;
  views: Map<string, ServedBrand>;
  /** Bytes held: the context (estimated as its JSON's) and every rendered view. */
  size: number;
}

/** Total bytes of brands and their rendered views kept in memory. */
const MAX_BRAND_BYTES = 64 * 1024 * 1024;
/** Total bytes of pinned versions and their views: most reads are of the latest, a few pipelines pin one. */
const MAX_PINNED_BYTES = 16 * 1024 * 1024;
/** The highest version the store can hold (a 32-bit integer). */
const MAX_STORED_VERSION = 2 ** 31 - 1;
/** Views kept per brand: a prompt pipeline asks a few; a client cycling through filters cannot grow one entry without end. */
const MAX_VIEWS = 32;

/**
 * The bytes of a view and their ETag, a hash of the bytes: a pinned version's view and the latest's share one
 * exactly when they are the same bytes, and a version's never changes, since the version never does.
 */
function served(view: BrandView, text: string, contentType: string, version: string): ServedBrand {
  const body = Buffer.from(text);
  const hash = createHash('sha256');
  // The whole JSON keeps the ETag it always had; every other view's names the view, so no two views share one.
  if (view !== WHOLE_BRAND_JSON) hash.update(`${view.key}\n`);
  return { body, etag: `"${hash.update(body).digest('base64url').slice(0, 27)}"`, contentType, version };
}

function cachedBrand(context: BrandContext): CachedBrand {
  const json = serializeBrandContext(context);
  const whole = served(WHOLE_BRAND_JSON, json, VIEW_CONTENT_TYPES.json, String(context.version));
  return { context, whole, views: new Map(), size: 2 * whole.body.length };
}

/** Renders `view` into the cached brand (at most MAX_VIEWS kept, the oldest dropped) and answers it. */
function addView(brand: CachedBrand, view: BrandView): ServedBrand {
  const { text, contentType } = renderBrandView(brand.context, view);
  const rendered = served(view, text, contentType, brand.whole.version);
  const [oldestKey, oldest] = brand.views.size >= MAX_VIEWS ? (brand.views.entries().next().value ?? []) : [];
  if (oldestKey !== undefined && oldest !== undefined) {
    brand.views.delete(oldestKey);
    brand.size -= oldest.body.length;
  }
  brand.views.set(view.key, rendered);
  brand.size += rendered.body.length;
  return rendered;
}

/**
 * The read operation's brands: views of brand contexts (docs/reading-brand-context.md "Formats and sections"), each rendered once per
 * brand version and served from a bounded in-memory cache that the store's change feed keeps exact
 * (src/services/shared/feed-cache.ts). Who may read which workspace is decided before (src/services/auth/credentials.ts).
 * Pinned versions (docs/brand-versions.md "Pinned reads") have a cache of their own, apart from the latest's so
 * that its hits pay nothing for them; a version never changes, so nothing invalidates its entries.
 */
export class BrandReader {
  private readonly brands: FeedCache<CachedBrand>;
  /** Pinned versions by `workspace\nversion`; only the bound evicts them. */
  private readonly pinned: LRUCache<string, CachedBrand> = new LRUCache({
    maxSize: MAX_PINNED_BYTES,
    sizeCalculation: (brand) => brand.size,
    dispose: (_brand, _id, reason) => {
      if (reason === 'evict') this.pinnedStats.evictions++;
    },
  });
  /** The pinned versions' cache's counts, for /metrics. */
  readonly pinnedStats: CacheStats = new CacheCounts(() => this.pinned.size);
  /** Pinned versions being loaded, so that many reads of one not yet cached load it once. */
  private readonly loadingPinned = new Map<string, Promise<CachedBrand>>();

  constructor(private readonly store: Pick<Store, 'brand' | 'changes'>) {
    this.brands = new FeedCache(store.changes, { maxSize: MAX_BRAND_BYTES, sizeOf: (brand) => brand.size });
  }

  /** A view of the brand of a workspace whose access the caller has already established. */
  readWorkspace(workspaceId: string, view: BrandView = WHOLE_BRAND_JSON): MaybePromise<ServedBrand> {
    const brand = this.brands.get(workspaceId, () => this.load(workspaceId));
    return brand instanceof Promise
      ? brand.then((loaded) => this.viewOf(workspaceId, loaded, view))
      : this.viewOf(workspaceId, brand, view);
  }

  /**
   * A view of the brand as it was at `version`, of a workspace whose access the caller has already
   * established; 404 `version_not_found` when the brand has no such version (yet).
   */
  readVersion(
    workspaceId: string,
    version: number,
    view: BrandView = WHOLE_BRAND_JSON,
  ): MaybePromise<ServedBrand> {
    const id = `${workspaceId}\n${String(version)}`;
    const brand = this.pinnedBrand(workspaceId, version);
    return brand instanceof Promise
      ? brand.then((loaded) => this.pinnedViewOf(id, loaded, view))
      : this.pinnedViewOf(id, brand, view);
  }

  /**
   * The brand context itself, latest or pinned, of a workspace whose access the caller has already established:
   * for what reads the brand rather than serves a view of it (the on-brand check, src/services/brand/check.ts).
   * The same object while the version is cached, so what is built from it can be kept beside it.
   */
  readContext(workspaceId: string, version?: number): MaybePromise<BrandContext> {
    if (version !== undefined) {
      const pinned = this.pinnedBrand(workspaceId, version);
      return pinned instanceof Promise ? pinned.then((loaded) => loaded.context) : pinned.context;
    }
    const contextOf = (brand: CachedBrand | undefined): BrandContext => {
      if (!brand) throw new AppError('workspace_not_found', { workspaceId });
      return brand.context;
    };
    const brand = this.brands.get(workspaceId, () => this.load(workspaceId));
    return brand instanceof Promise ? brand.then(contextOf) : contextOf(brand);
  }

  /** A pinned version from its cache, else loaded once however many ask at once. */
  private pinnedBrand(workspaceId: string, version: number): MaybePromise<CachedBrand> {
    const id = `${workspaceId}\n${String(version)}`;
    const hit = this.pinned.get(id);
    if (hit) {
      this.pinnedStats.hits++;
      return hit;
    }
    this.pinnedStats.misses++;
    let loading = this.loadingPinned.get(id);
    if (!loading) {
      loading = this.loadVersion(workspaceId, version).then(
        (brand) => {
          this.loadingPinned.delete(id);
          this.pinned.set(id, brand);
          return brand;
        },
        (error: unknown) => {
          this.loadingPinned.delete(id);
          throw error;
        },
      );
      this.loadingPinned.set(id, loading);
    }
    return loading;
  }

  private async load(workspaceId: string): Promise<CachedBrand | undefined> {
    const context = await this.store.brand.get(workspaceId);
    return context ? cachedBrand(context) : undefined;
  }

  private async loadVersion(workspaceId: string, version: number): Promise<CachedBrand> {
    // The read accepts up to 2^31; the store's integers stop one short, where no brand will ever be.
    const found =
      version <= MAX_STORED_VERSION ? await this.store.brand.getVersion(workspaceId, version) : undefined;
    if (!found) throw new AppError('version_not_found', { workspaceId, version });
    return cachedBrand(found.brand);
  }

  /** The view: the whole JSON or one already rendered, else rendered into the cached brand now. */
  private viewOf(workspaceId: string, brand: CachedBrand | undefined, view: BrandView): ServedBrand {
    if (!brand) throw new AppError('workspace_not_found', { workspaceId });
    if (view === WHOLE_BRAND_JSON) return brand.whole;
    const known = brand.views.get(view.key);
    if (known) return known;
    const rendered = addView(brand, view);
    this.brands.remeasure(workspaceId, brand);
    return rendered;
  }

  /** As `viewOf`, for a pinned version. */
  private pinnedViewOf(id: string, brand: CachedBrand, view: BrandView): ServedBrand {
    if (view === WHOLE_BRAND_JSON) return brand.whole;
    const known = brand.views.get(view.key);
    if (known) return known;
    const rendered = addView(brand, view);
    // Measured again, so the bound stays true; a version no longer cached is left alone.
    if (this.pinned.peek(id) === brand) this.pinned.set(id, brand);
    return rendered;
  }

  /** Its cache's counts, for /metrics. */
  get cacheStats(): CacheStats {
    return this.brands.stats;
  }

  close(): void {
    this.brands.close();
  }
}
