import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoSeed } from '../../src/services/demo/demo.js';
import { killAllChildren, readBrand, runCliJson, ServerProcess } from './cli-process.js';

/** The shared Redis of CI and development (test/http/rate-limit-redis.test.ts has the limit's own tests). */
const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('brand-context serve with REDIS_URL', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'brand-context-redis-serve-'));
  });

  afterAll(async () => {
    await killAllChildren();
    await rm(dir, { recursive: true, force: true });
  });

  it('starts with its Redis client, which the built service loads only then, and serves reads', async () => {
    const databaseUrl = `sqlite:${join(dir, 'brand-context.db')}`;
    const seed = await runCliJson<DemoSeed>(['seed', '--json'], { databaseUrl });
    const server = await ServerProcess.start([], {
      databaseUrl,
      env: { RATE_LIMIT_READS: '1000/60s', REDIS_URL: SHARED_REDIS_URL },
    });
    expect(server.logLines().join('\n')).toContain('budget across nodes through Redis');
    expect((await readBrand(server.baseUrl, seed.brand_read_key, seed.workspace_id)).status).toBe(200);
    expect(await server.stop(), server.describe()).toEqual({ code: 0, signal: null });
  });
});
