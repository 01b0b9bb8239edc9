import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from '../config.js';
import { systemClock } from '../core/clock.js';
import { keySigners } from '../core/key-signature.js';
import type { Deps } from '../services/shared/deps.js';
import { loadKeySigningSecret } from '../services/keys/signing-secret.js';
import { openStore } from '../store/open-store.js';

/**
 * Opens the configured store for one command and closes it afterwards, whatever happens. Only commands that
 * create something (`create: true`) may bring a new SQLite database into being: any other command run where
 * there is none says so, instead of creating an empty one and reporting, say, "No workspaces yet".
 */
export async function withDeps<T>(
  work: (deps: Deps) => Promise<T>,
  options: { create?: boolean } = {},
): Promise<T> {
  const config = loadConfig();
  const { database } = config;
  if (
    !options.create &&
    database.kind === 'sqlite' &&
    database.path !== ':memory:' &&
    !existsSync(database.path)
  ) {
    throw new ConfigError(
      `there is no database at ${database.path}: run the command where the service keeps it, set DATABASE_URL (sqlite:PATH or postgres://…), or create one with \`brand-context seed\` or \`brand-context workspace create\``,
    );
  }
  const store = await openStore(database);
  try {
    // The secret `serve` signs keys with, so that it verifies the keys made here (docs/keys.md "Brand read keys").
    const { secret } = await loadKeySigningSecret(config);
    return await work({ store, clock: systemClock, keySigners: keySigners(secret) });
  } finally {
    await store.close();
  }
}
