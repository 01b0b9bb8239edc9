import { loadConfig } from '../config.js';
import { systemClock } from '../core/clock.js';
import type { Deps } from '../services/deps.js';
import { openStore } from '../store/open-store.js';

/** Opens the configured store for one command and closes it afterwards, whatever happens. */
export async function withDeps<T>(work: (deps: Deps) => Promise<T>): Promise<T> {
  const store = await openStore(loadConfig().database);
  try {
    return await work({ store, clock: systemClock });
  } finally {
    await store.close();
  }
}
