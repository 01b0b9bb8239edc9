import type { KeyKindId } from '../../core/key-kinds.js';
import type { Repositories, UsageStamp } from '../../store/store.js';

/** `last_used_at` is promised accurate to 60 seconds; flushing twice a minute keeps well inside that. */
const FLUSH_INTERVAL_MS = 30_000;

/** Whose uses are stamped: a key of each kind, and personal access tokens. */
export type Credential = KeyKindId | 'accessToken';

/**
 * Remembers when each workspace key and personal access token was last used, and writes that in batches:
 * the read operation never waits for a database write. Pending stamps are written on close (shutdown).
 */
export class UsageRecorder {
  /** Each credential's uses not yet written: id → epoch ms of the latest use. */
  private readonly pending = new Map<Credential, Map<string, number>>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly store: Pick<Repositories, 'keys' | 'tokens'>,
    onError: (error: unknown) => void,
    intervalMs = FLUSH_INTERVAL_MS,
  ) {
    this.timer = setInterval(() => {
      this.flush().catch(onError);
    }, intervalMs);
    this.timer.unref();
  }

  private write(credential: Credential, stamps: readonly UsageStamp[]): Promise<void> {
    return credential === 'accessToken' ? this.store.tokens.touch(stamps) : this.store.keys.touch(stamps);
  }

  used(credential: Credential, id: string, at: number): void {
    let uses = this.pending.get(credential);
    if (!uses) this.pending.set(credential, (uses = new Map<string, number>()));
    if ((uses.get(id) ?? 0) < at) uses.set(id, at);
  }

  /** A use not yet written, so that this node's listings are exact before the next flush. */
  pendingUse(credential: Credential, id: string): string | undefined {
    const at = this.pending.get(credential)?.get(id);
    return at === undefined ? undefined : new Date(at).toISOString();
  }

  async flush(): Promise<void> {
    const failures: unknown[] = [];
    for (const [credential, uses] of this.pending) {
      if (uses.size === 0) continue;
      const stamps = [...uses].map(([id, at]) => ({ id, usedAt: new Date(at).toISOString() }));
      uses.clear();
      try {
        await this.write(credential, stamps);
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
