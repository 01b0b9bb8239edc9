import type { Store, UsageStamp } from '../store/store.js';

/** `last_used_at` is promised accurate to 60 seconds; flushing twice a minute keeps well inside that. */
const FLUSH_INTERVAL_MS = 30_000;

type Credential = 'brandKeys' | 'apiKeys' | 'accessTokens';

/**
 * Remembers when each brand read key, workspace API key and personal access token was last used, and
 * writes that in batches: the read operation never waits for a database write. Pending stamps are written
 * on close (shutdown).
 */
export class UsageRecorder {
  private readonly pending: Record<Credential, Map<string, number>> = {
    brandKeys: new Map(),
    apiKeys: new Map(),
    accessTokens: new Map(),
  };
  private readonly writers: Record<Credential, (stamps: readonly UsageStamp[]) => Promise<void>>;
  private readonly timer: NodeJS.Timeout;

  constructor(store: Store, onError: (error: unknown) => void, intervalMs = FLUSH_INTERVAL_MS) {
    this.writers = {
      brandKeys: (stamps) => store.touchBrandKeys(stamps),
      apiKeys: (stamps) => store.touchApiKeys(stamps),
      accessTokens: (stamps) => store.touchAccessTokens(stamps),
    };
    this.timer = setInterval(() => {
      this.flush().catch(onError);
    }, intervalMs);
    this.timer.unref();
  }

  private used(credential: Credential, id: string, at: number): void {
    const uses = this.pending[credential];
    if ((uses.get(id) ?? 0) < at) uses.set(id, at);
  }

  /** A use not yet written, so that this node's listings are exact before the next flush. */
  private pendingUse(credential: Credential, id: string): string | undefined {
    const at = this.pending[credential].get(id);
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  brandKeyUsed(id: string, at: number): void {
    this.used('brandKeys', id, at);
  }

  apiKeyUsed(id: string, at: number): void {
    this.used('apiKeys', id, at);
  }

  accessTokenUsed(id: string, at: number): void {
    this.used('accessTokens', id, at);
  }

  pendingBrandKeyUse(id: string): string | undefined {
    return this.pendingUse('brandKeys', id);
  }

  pendingApiKeyUse(id: string): string | undefined {
    return this.pendingUse('apiKeys', id);
  }

  pendingAccessTokenUse(id: string): string | undefined {
    return this.pendingUse('accessTokens', id);
  }

  async flush(): Promise<void> {
    const failures: unknown[] = [];
    for (const credential of Object.keys(this.pending) as Credential[]) {
      const uses = this.pending[credential];
      if (uses.size === 0) continue;
      const stamps = [...uses].map(([id, at]) => ({ id, usedAt: new Date(at).toISOString() }));
      uses.clear();
      try {
        await this.writers[credential](stamps);
      } catch (error) {
        // Keep the stamps for the next flush (writing one twice is harmless: stamps only move forward).
        for (const { id, usedAt } of stamps) this.used(credential, id, Date.parse(usedAt));
        failures.push(error);
      }
    }
    if (failures.length > 0) throw failures[0];
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}
