import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, readFile, unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { type Config, ConfigError, decodeSigningSecret } from '../../config.js';
import { SIGNING_SECRET_BYTES } from '../../core/key-signature.js';

/** The key file's name, in the directory of the SQLite database. */
export const KEY_FILE_NAME = 'key-signing-secret';

/** Where the secret that signs brand read keys came from, for the start-up log; none: keys are not signed. */
export type KeySigningSource =
  { kind: 'environment' } | { kind: 'file'; path: string } | { kind: 'none'; reason: 'postgres' | 'memory' };

export interface KeySigningSecret {
  secret: Buffer | undefined;
  source: KeySigningSource;
}

/**
 * The secret that signs brand read keys (docs/keys.md "Brand read keys"), never kept in the database, so that a copy
 * of it cannot make keys: BRAND_CONTEXT_KEY_SIGNING_SECRET when set; else, for a SQLite file, a key file made
 * once in the database's directory and shared by `serve` and every CLI command; else (PostgreSQL, or SQLite in
 * memory) none, and keys are not signed: each key the cache misses is looked up.
 */
export async function loadKeySigningSecret(
  config: Pick<Config, 'database' | 'keySigningSecret'>,
): Promise<KeySigningSecret> {
  if (config.keySigningSecret !== undefined)
    return { secret: config.keySigningSecret, source: { kind: 'environment' } };
  const { database } = config;
  if (database.kind === 'postgres')
    return { secret: undefined, source: { kind: 'none', reason: 'postgres' } };
  if (database.path === ':memory:') return { secret: undefined, source: { kind: 'none', reason: 'memory' } };
  const path = join(dirname(database.path), KEY_FILE_NAME);
  return { secret: await readOrCreateKeyFile(path), source: { kind: 'file', path } };
}

/** What `serve` says at start of where its signing secret lives; a warning where keys are not signed. */
export function keySigningNotice(source: KeySigningSource): { level: 'info' | 'warn'; message: string } {
  switch (source.kind) {
    case 'environment':
      return { level: 'info', message: 'brand read keys are signed with BRAND_CONTEXT_KEY_SIGNING_SECRET' };
    case 'file':
      return {
        level: 'info',
        message: `brand read keys are signed with the key file ${source.path} (set BRAND_CONTEXT_KEY_SIGNING_SECRET to share one secret across machines)`,
      };
    case 'none':
      return {
        level: 'warn',
        message:
          source.reason === 'postgres'
            ? 'BRAND_CONTEXT_KEY_SIGNING_SECRET is not set: brand read keys are not signed, so every key the cache misses is looked up in the database; on several nodes, set it to the same 32 bytes in base64 on each (openssl rand -base64 32)'
            : 'brand read keys are not signed with a database in memory: every key the cache misses is looked up',
      };
  }
}

/**
 * The key file's secret, made if there is none: written to a file of its own (mode 0600) and then linked into
 * place, which fails if another process linked first, so that processes starting at once all read one secret.
 */
async function readOrCreateKeyFile(path: string): Promise<Buffer> {
  const existing = await readKeyFile(path);
  if (existing !== undefined) return existing;
  const temporary = `${path}.${String(process.pid)}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(temporary, `${randomBytes(SIGNING_SECRET_BYTES).toString('base64')}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  try {
    await link(temporary, path);
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    // A file system without hard links: created exclusively instead (a process reading it in the instant
    // between its creation and its write would stop with the error below, and start again).
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP')
      await copyFile(temporary, path, constants.COPYFILE_EXCL).catch((copying: unknown) => {
        if ((copying as NodeJS.ErrnoException).code !== 'EEXIST') throw copying;
      });
    else if (code !== 'EEXIST') throw error;
  } finally {
    await unlink(temporary);
  }
  const made = await readKeyFile(path);
  if (made === undefined) throw new Error(`the key file ${path} vanished as it was made`);
  return made;
}

async function readKeyFile(path: string): Promise<Buffer | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = decodeSigningSecret(text.trim());
  if (secret === undefined) {
    throw new ConfigError(
      `the key file ${path} does not hold 32 bytes in base64: restore it, or delete it to make a new one (keys signed with the old one are then looked up instead)`,
    );
  }
  return secret;
}
