import type { Clock } from '../core/clock.js';
import type { Store } from '../store/store.js';

/** What every use case needs; the HTTP app, the CLI and tests each assemble one. */
export interface Deps {
  store: Store;
  clock: Clock;
}
