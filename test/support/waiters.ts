/**
 * Conditions a test waits for on what a test server received (the SMTP relay, the webhook receiver): each
 * checked at once, then again whenever something arrives, until it holds or its time is up.
 */
export class Waiters {
  private readonly checks = new Set<() => void>();

  /** `server` names it in failures: "the relay's condition did not hold …". */
  constructor(private readonly server: string) {}

  /** Something arrived: checks every condition still waited for. */
  notify(): void {
    for (const check of this.checks) check();
  }

  /** Resolves once `done` holds; after `timeoutMs`, fails saying what had `arrived`. */
  until(done: () => boolean, timeoutMs: number, arrived: () => string): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done()) return;
        finish();
        resolve();
      };
      const timer = setTimeout(() => {
        finish();
        reject(
          new Error(
            `the ${this.server}'s condition did not hold within ${String(timeoutMs)} ms; ${arrived()}`,
          ),
        );
      }, timeoutMs);
      const finish = () => {
        clearTimeout(timer);
        this.checks.delete(check);
      };
      this.checks.add(check);
      check();
    });
  }
}
