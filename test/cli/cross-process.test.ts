import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrandContext } from '../../src/core/brand-context.js';
import type { CreatedKey } from '../../src/contract/keys.js';
import type { DemoSeed } from '../../src/services/demo/demo.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import {
  keysIn,
  killAllChildren,
  pollUntil,
  readBrand,
  runCli,
  runCliJson,
  ServerProcess,
} from './cli-process.js';

/** The promise: a write made by the CLI in another process is served within a second of that process ending. */
const PROPAGATION_LIMIT_MS = 1000;

describeEachBackend('Writes by the CLI in another process reach the running server', (backend) => {
  let database: TestDatabase;
  let server: ServerProcess;
  let seed: DemoSeed;
  /** Every key the CLI printed in this suite. */
  const printedKeys: string[] = [];
  const cli = (args: string[], input?: string) => runCli(args, { databaseUrl: database.url, input });

  beforeAll(async () => {
    database = await backend.create();
    [server, seed] = await Promise.all([
      ServerProcess.start([], { databaseUrl: database.url, env: { LOG_LEVEL: 'debug' } }),
      runCliJson<DemoSeed>(['seed', '--json'], { databaseUrl: database.url }),
    ]);
    printedKeys.push(seed.brand_read_key);
  });

  afterAll(async () => {
    await killAllChildren();
    await database.drop();
  });

  it('refuses a key revoked by the CLI in another process within one second', async () => {
    const read = () => readBrand(server.baseUrl, seed.brand_read_key, seed.workspace_id);
    // Twice, so that the key and the brand are certainly served from the server's caches.
    expect((await read()).status).toBe(200);
    expect((await read()).status).toBe(200);

    const revoke = await cli(['keys', 'revoke', '--workspace', seed.workspace_id, seed.brand_read_key_id]);
    expect(revoke.code).toBe(0);
    const { value, at } = await pollUntil(read, (response) => response.status !== 200, { timeoutMs: 5000 });

    expect(value.status).toBe(401);
    expect(value.body).toMatchObject({ code: 'key_revoked' });
    expect(at - revoke.exitedAt).toBeLessThan(PROPAGATION_LIMIT_MS);
    expect((await read()).status).toBe(401);
  });

  it('serves a brand imported by the CLI in another process, as a new version, within one second', async () => {
    const key = await runCliJson<CreatedKey>(
      ['keys', 'create', '--workspace', seed.workspace_id, '--name', 'cross-process', '--json'],
      { databaseUrl: database.url },
    );
    printedKeys.push(key.key);
    const read = () => readBrand(server.baseUrl, key.key, seed.workspace_id);
    const before = await read();
    expect(before.status).toBe(200);
    expect((await read()).body).toEqual(before.body);
    const served = before.body as unknown as BrandContext;

    const imported = await cli(
      ['brand', 'import', '--workspace', seed.workspace_id, '-'],
      JSON.stringify({ ...served, voice: 'Bold and brief.' }),
    );
    expect(imported.code).toBe(0);
    const { value, at } = await pollUntil(read, (response) => response.body.version !== served.version, {
      timeoutMs: 5000,
    });

    expect(value.status).toBe(200);
    expect(value.body).toMatchObject({ version: served.version + 1, voice: 'Bold and brief.' });
    expect(at - imported.exitedAt).toBeLessThan(PROPAGATION_LIMIT_MS);
  });

  it('never writes a key that the CLI printed, or that clients sent, to the server logs', () => {
    expect(printedKeys).toHaveLength(2);
    const output = server.stdout + server.stderr;
    expect(server.logLines().length).toBeGreaterThan(4);
    expect(keysIn(output)).toEqual([]);
    for (const key of printedKeys) expect(output).not.toContain(key);
  });
});
