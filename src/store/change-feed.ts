/** A workspace whose keys or brand changed, or `null`: anything may have changed. */
export interface StoreChange {
  workspaceId: string | null;
}

export type ChangeListener = (change: StoreChange) => void;

export interface ChangeFeed {
  subscribe(listener: ChangeListener): () => void;
  /**
   * False while writes by other processes could go unnoticed (the PostgreSQL listener is reconnecting):
   * caches must not serve from memory then.
   */
  readonly live: boolean;
  /**
   * Milliseconds since the watcher last proved that no other process's write went unnoticed (a heartbeat or
   * poll), at `now`: 0 without a watcher (this process's own writes arrive at once); growing while it is down.
   */
  lagMs(now: number): number;
}

/**
 * Fans changes out to listeners. Local writes are emitted synchronously after they commit; a backend's
 * watcher (SQLite `data_version` polling, PostgreSQL LISTEN) emits what other processes wrote. The watcher
 * starts with the first subscriber, so short-lived CLI commands never run one.
 */
export class ChangeHub implements ChangeFeed {
  private readonly listeners = new Set<ChangeListener>();
  private stopWatching: (() => void) | undefined;
  live = true;
  /** When the watcher last proved it missed nothing (`confirm`), or started, if it has not yet. */
  private confirmedAt: number | undefined;

  constructor(private readonly startWatching: (hub: ChangeHub) => () => void) {}

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    if (this.stopWatching === undefined) {
      this.confirmedAt = Date.now();
      this.stopWatching = this.startWatching(this);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stop();
    };
  }

  emit(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }

  /** The watcher's heartbeat or poll succeeded: every write committed before it has been emitted. */
  confirm(): void {
    this.confirmedAt = Date.now();
  }

  lagMs(now: number): number {
    return this.confirmedAt === undefined ? 0 : Math.max(0, now - this.confirmedAt);
  }

  stop(): void {
    this.stopWatching?.();
    this.stopWatching = undefined;
    this.confirmedAt = undefined;
  }
}
