import { createHash } from 'node:crypto';
import { serializeBrandContext } from '../core/brand-context.js';
import { AppError } from '../core/errors.js';
import type { Store } from '../store/store.js';
import { FeedCache, type MaybePromise } from './feed-cache.js';

/** A workspace's brand context, serialized once per version and served as these exact bytes. */
export interface ServedBrand {
  body: Buffer;
  etag: string;
}

/** Total bytes of serialized brand contexts kept in memory. */
const MAX_BRAND_BYTES = 64 * 1024 * 1024;

/**
 * The read operation's brands: pre-serialized brand contexts served from a bounded in-memory cache that
 * the store's change feed keeps exact (src/services/feed-cache.ts). Who may read which workspace is
 * decided before (src/services/credentials.ts).
 */
export class BrandReader {
  private readonly brands: FeedCache<ServedBrand>;

  constructor(private readonly store: Pick<Store, 'brand' | 'changes'>) {
    this.brands = new FeedCache(store.changes, {
      maxSize: MAX_BRAND_BYTES,
      sizeOf: (brand) => brand.body.length,
    });
  }

  /** The served brand of a workspace whose access the caller has already established. */
  readWorkspace(workspaceId: string): MaybePromise<ServedBrand> {
    const brand = this.brands.get(workspaceId, async () => {
      const context = await this.store.brand.get(workspaceId);
      if (!context) return undefined;
      const body = Buffer.from(serializeBrandContext(context));
      return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
    });
    return brand instanceof Promise ? brand.then((loaded) => this.found(loaded, workspaceId)) : brand;
  }

  private found(brand: ServedBrand | undefined, workspaceId: string): ServedBrand {
    if (!brand) throw new AppError('workspace_not_found', { workspaceId });
    return brand;
  }

  close(): void {
    this.brands.close();
  }
}
