import { mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseKeySigningSecret } from '../../config.js';
import { KEY_FILE_NAME, keySigningNotice, loadKeySigningSecret } from './signing-secret.js';

describe('Where the secret that signs brand read keys lives', () => {
  let dir: string;
  const sqlite = () => ({ kind: 'sqlite' as const, path: join(dir, 'brand-context.db') });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'key-signing-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('makes a key file of 32 random bytes beside a SQLite database, readable by its owner only, once', async () => {
    const first = await loadKeySigningSecret({ database: sqlite(), keySigningSecret: undefined });
    expect(first.source).toEqual({ kind: 'file', path: join(dir, KEY_FILE_NAME) });
    expect(first.secret).toHaveLength(32);
    expect((await stat(join(dir, KEY_FILE_NAME))).mode & 0o777).toBe(0o600);
    const again = await loadKeySigningSecret({ database: sqlite(), keySigningSecret: undefined });
    expect(again.secret?.equals(first.secret ?? Buffer.alloc(0))).toBe(true);
  });

  it('gives processes starting at once one secret, and leaves no temporary file behind', async () => {
    const loads = await Promise.all(
      Array.from({ length: 20 }, () =>
        loadKeySigningSecret({ database: sqlite(), keySigningSecret: undefined }),
      ),
    );
    const secrets = new Set(loads.map(({ secret }) => secret?.toString('base64')));
    expect(secrets.size).toBe(1);
    expect(await readdir(dir)).toEqual([KEY_FILE_NAME]);
  });

  it('takes BRAND_CONTEXT_KEY_SIGNING_SECRET over any key file, and makes none', async () => {
    const configured = Buffer.alloc(32, 9);
    const loaded = await loadKeySigningSecret({ database: sqlite(), keySigningSecret: configured });
    expect(loaded).toEqual({ secret: configured, source: { kind: 'environment' } });
    expect(await readdir(dir)).toEqual([]);
  });

  it('signs nothing on PostgreSQL without BRAND_CONTEXT_KEY_SIGNING_SECRET, and warns that several nodes need it', async () => {
    const loaded = await loadKeySigningSecret({
      database: { kind: 'postgres', url: 'postgres://db.example/brand' },
      keySigningSecret: undefined,
    });
    expect(loaded).toEqual({ secret: undefined, source: { kind: 'none', reason: 'postgres' } });
    const notice = keySigningNotice(loaded.source);
    expect(notice.level).toBe('warn');
    expect(notice.message).toContain('BRAND_CONTEXT_KEY_SIGNING_SECRET is not set');
  });

  it('refuses a key file that does not hold 32 bytes in base64, naming the file and not its content', async () => {
    await writeFile(join(dir, KEY_FILE_NAME), 'c2hvcnQgc2VjcmV0\n', { mode: 0o600 });
    const loading = loadKeySigningSecret({ database: sqlite(), keySigningSecret: undefined });
    await expect(loading).rejects.toThrow(ConfigError);
    await expect(loading).rejects.toThrow(`the key file ${join(dir, KEY_FILE_NAME)} does not hold 32 bytes`);
    await expect(loading).rejects.not.toThrow('c2hvcnQgc2VjcmV0');
  });
});

describe('BRAND_CONTEXT_KEY_SIGNING_SECRET', () => {
  it('takes 32 bytes in base64, with or without its padding', () => {
    const secret = Buffer.alloc(32, 5);
    const text = secret.toString('base64');
    expect(parseKeySigningSecret({ BRAND_CONTEXT_KEY_SIGNING_SECRET: text })).toEqual(secret);
    expect(parseKeySigningSecret({ BRAND_CONTEXT_KEY_SIGNING_SECRET: text.replace(/=+$/, '') })).toEqual(
      secret,
    );
    expect(parseKeySigningSecret({ BRAND_CONTEXT_KEY_SIGNING_SECRET: '' })).toBeUndefined();
    expect(loadConfig({ BRAND_CONTEXT_KEY_SIGNING_SECRET: text }).keySigningSecret).toEqual(secret);
  });

  it('stops the service at start with one clear line for anything that is not 32 bytes in base64, never echoing it', () => {
    for (const text of [
      Buffer.alloc(16, 1).toString('base64'),
      Buffer.alloc(33, 1).toString('base64'),
      Buffer.alloc(32, 1).toString('hex'),
      `${Buffer.alloc(32, 1).toString('base64').slice(0, -2)}!!`,
      'correct horse battery staple',
    ]) {
      let error: unknown;
      try {
        loadConfig({ BRAND_CONTEXT_KEY_SIGNING_SECRET: text });
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as Error).message).toBe(
        'BRAND_CONTEXT_KEY_SIGNING_SECRET must be 32 bytes in base64 (openssl rand -base64 32), the same on every node',
      );
      expect((error as Error).message).not.toContain(text);
    }
  });
});
