import type { Store, UsageStamp } from '../store/store.js';

/** `last_used_at` is promised accurate to 60 seconds; flushing twice a minute keeps well inside that. */
const FLUSH_INTERVAL_MS = 30_000;

function drain(pending: Map<string, number>): UsageStamp[] {
  const stamps = [...pending].map(([id, at]) => ({ id, usedAt: new Date(at).toISOString() }));
  pending.clear();
  return stamps;
}

/**
 * Remembers when each brand read key and personal access token was last used, and writes that in batches:
 * the read operation never waits for a database write. Pending stamps are written on close (shutdown).
 */
export class UsageRecorder {
  private readonly brandKeys = new Map<string, number>();
  private readonly accessTokens = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Store,
    private readonly onError: (error: unknown) => void,
    intervalMs = FLUSH_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => {
      this.flush().catch(onError);
    }, intervalMs);
    this.timer.unref();
  }

  brandKeyUsed(id: string, at: number): void {
    if ((this.brandKeys.get(id) ?? 0) < at) this.brandKeys.set(id, at);
  }

  accessTokenUsed(id: string, at: number): void {
    if ((this.accessTokens.get(id) ?? 0) < at) this.accessTokens.set(id, at);
  }

  /** A use not yet written, so that this node's listings are exact before the next flush. */
  pendingBrandKeyUse(id: string): string | undefined {
    const at = this.brandKeys.get(id);
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  pendingAccessTokenUse(id: string): string | undefined {
    const at = this.accessTokens.get(id);
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  async flush(): Promise<void> {
    const keys = drain(this.brandKeys);
    const tokens = drain(this.accessTokens);
    try {
      if (keys.length > 0) await this.store.touchBrandKeys(keys);
      if (tokens.length > 0) await this.store.touchAccessTokens(tokens);
    } catch (error) {
      // Keep the stamps for the next flush (writing one twice is harmless: stamps only move forward).
      for (const { id, usedAt } of keys) this.brandKeyUsed(id, Date.parse(usedAt));
      for (const { id, usedAt } of tokens) this.accessTokenUsed(id, Date.parse(usedAt));
      throw error;
    }
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
