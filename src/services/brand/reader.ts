import { createHash } from 'node:crypto';
import { type BrandContext, serializeBrandContext } from '../../core/brand-context.js';
import {
  type BrandView,
  renderBrandView,
  VIEW_CONTENT_TYPES,
  WHOLE_BRAND_JSON,
} from '../../core/brand-views.js';
import { AppError } from '../../core/errors.js';
import type { Store } from '../../store/store.js';
import { FeedCache, type MaybePromise } from '../shared/feed-cache.js';
import type { CacheStats } from '../metrics/metrics.js';

/** One view of a workspace's brand, rendered once per version and served as these exact bytes. */
export interface ServedBrand {
  body: Buffer;
  etag: string;
  contentType: string;
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
/** Views kept per brand: a prompt pipeline asks a few; a client cycling through filters cannot grow one entry without end. */
const MAX_VIEWS = 32;

function served(view: BrandView, text: string, contentType: string): ServedBrand {
  const body = Buffer.from(text);
  const hash = createHash('sha256');
  // The whole JSON keeps the ETag it always had; every other view's names the view, so no two views share one.
  if (view !== WHOLE_BRAND_JSON) hash.update(`${view.key}\n`);
  return { body, etag: `"${hash.update(body).digest('base64url').slice(0, 27)}"`, contentType };
}

function render(context: BrandContext, view: BrandView): ServedBrand {
  const { text, contentType } = renderBrandView(context, view);
  return served(view, text, contentType);
}

/**
 * The read operation's brands: views of brand contexts (docs/reading-brand-context.md "Formats and sections"), each rendered once per
 * brand version and served from a bounded in-memory cache that the store's change feed keeps exact
 * (src/services/shared/feed-cache.ts). Who may read which workspace is decided before (src/services/auth/credentials.ts).
 */
export class BrandReader {
  private readonly brands: FeedCache<CachedBrand>;

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

  private async load(workspaceId: string): Promise<CachedBrand | undefined> {
    const context = await this.store.brand.get(workspaceId);
    if (!context) return undefined;
    const json = serializeBrandContext(context);
    const whole = served(WHOLE_BRAND_JSON, json, VIEW_CONTENT_TYPES.json);
    return { context, whole, views: new Map(), size: 2 * whole.body.length };
  }

  /** The view: the whole JSON or one already rendered, else rendered into the cached brand now. */
  private viewOf(workspaceId: string, brand: CachedBrand | undefined, view: BrandView): ServedBrand {
    if (!brand) throw new AppError('workspace_not_found', { workspaceId });
    if (view === WHOLE_BRAND_JSON) return brand.whole;
    const known = brand.views.get(view.key);
    if (known) return known;
    const rendered = render(brand.context, view);
    const [oldestKey, oldest] =
      brand.views.size >= MAX_VIEWS ? (brand.views.entries().next().value ?? []) : [];
    if (oldestKey !== undefined && oldest !== undefined) {
      brand.views.delete(oldestKey);
      brand.size -= oldest.body.length;
    }
    brand.views.set(view.key, rendered);
    brand.size += rendered.body.length;
    this.brands.remeasure(workspaceId, brand);
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
