import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { DemoSeed } from '../../src/services/demo/demo.js';
import { KEY_FILE_NAME } from '../../src/services/keys/signing-secret.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '#test/support/databases.js';
import { killAllChildren, readBrand, runCli, runCliJson, ServerProcess } from './cli-process.js';

/** The counter of keys the key cache missed that their signature verified, as `serve` exports it. */
async function verifiedBySignature(server: ServerProcess): Promise<number> {
  const metrics = await (await fetch(`${server.baseUrl}/metrics`)).text();
  return Number(/^brand_context_keys_verified_by_signature_total (\d+)$/m.exec(metrics)?.[1]);
}

/**
 * Where `serve` and the CLI find the secret that signs brand read keys: never in the database (docs/keys.md "Brand
 * read keys"), so each process must be given the same one, or (SQLite) read the same key file.
 */
describeEachBackend('The key-signing secret, shared by the CLI and serve', (backend) => {
  let database: TestDatabase;
  /** What every process of this deployment is given on PostgreSQL, where there is no key file. */
  const env =
    backend.name === 'postgres'
      ? { BRAND_CONTEXT_KEY_SIGNING_SECRET: randomBytes(32).toString('base64') }
      : undefined;

  beforeAll(async () => {
    database = await backend.create();
  });
  afterAll(async () => {
    await killAllChildren();
    await database.drop();
  });

  it('signs a key made by the CLI so that serve verifies it by its signature, and keeps no secret in the database', async () => {
    const seed = await runCliJson<DemoSeed>(['seed', '--json'], { databaseUrl: database.url, env });
    if (database.config.kind === 'sqlite') {
      const keyFile = join(dirname(database.config.path), KEY_FILE_NAME);
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    }
    const server = await ServerProcess.start([], {
      databaseUrl: database.url,
      env: { LOG_LEVEL: 'info', ...env },
    });
    try {
      expect(await verifiedBySignature(server)).toBe(0);
      expect((await readBrand(server.baseUrl, seed.brand_read_key, seed.workspace_id)).status).toBe(200);
      expect(await verifiedBySignature(server)).toBe(1);
    } finally {
      await server.stop();
    }
    const { settings } = await snapshotTables(database.config);
    expect((settings as { name: string }[]).map(({ name }) => name)).not.toContain('key_signing_secret');
  });

  it('refuses to start with a BRAND_CONTEXT_KEY_SIGNING_SECRET that is not 32 bytes in base64, in one line', async () => {
    const result = await runCli(['serve'], {
      databaseUrl: database.url,
      env: { BRAND_CONTEXT_KEY_SIGNING_SECRET: 'not-a-secret', PORT: '0' },
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error: BRAND_CONTEXT_KEY_SIGNING_SECRET must be 32 bytes in base64 (openssl rand -base64 32), the same on every node\n',
    );
  });
});
