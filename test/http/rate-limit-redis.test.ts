import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import type { Redis } from 'ioredis';
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { RateLimit } from '../../src/config.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { connectRedis, redisAddress } from '../../src/services/brand/read-limits.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { useFixture } from '#test/support/http-fixture.js';

/** The shared Redis of CI and development; each run counts under its own key prefix. */
const SHARED_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const BUDGET: RateLimit = { points: 4, windowMs: 60_000 };
const PASSWORD = `pw-${randomUUID()}`;

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** A redis-server of this test's own, with a password, that it may stop. */
async function startOwnRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--requirepass',
      PASSWORD,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
  });
  for (let i = 0; i < 100 && !output.includes('Ready to accept connections'); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (!output.includes('Ready to accept connections'))
    throw new Error(`redis-server did not start: ${output}`);
  return child;
}

async function stopOwnRedis(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = once(server, 'exit');
  server.kill('SIGCONT');
  server.kill('SIGTERM');
  await exited;
}

/** The client's next `event`; unlike events.once, its error events (while reconnecting) do not reject. */
function next(redis: Redis, event: 'ready' | 'close'): Promise<void> {
  return new Promise((resolve) =>
    redis.once(event, () => {
      resolve();
    }),
  );
}

async function ready(redis: Redis): Promise<Redis> {
  if (redis.status !== 'ready') await next(redis, 'ready');
  return redis;
}

describeEachBackend('the read budget shared through Redis', (backend) => {
  const fixture = useFixture(backend);
  const opened: { close(): Promise<void> }[] = [];
  const clients: Redis[] = [];
  let database: TestDatabase;

  beforeAll(() => {
    database = fixture().database;
  });
  afterEach(async () => {
    for (const app of opened.splice(0)) await app.close();
    for (const client of clients.splice(0)) client.disconnect();
  });

  /** A node on the fixture's database counting reads through `redis`. */
  async function node(
    redis: Redis,
    keyPrefix = `brand-context-test:${randomUUID()}`,
    redisRetryMs?: number,
  ): Promise<TestApp> {
    clients.push(redis);
    const app = await startTestApp(database, {
      readLimits: { limit: BUDGET, redis, keyPrefix, redisRetryMs },
    });
    opened.push(app);
    return app;
  }

  async function newKey(): Promise<string> {
    const f = fixture();
    return (await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'shared' })).key;
  }

  /** The read limit's metrics as GET /metrics shows them. */
  async function readLimitMetrics(app: TestApp): Promise<string[]> {
    const text = (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
    return text.split('\n').filter((line) => line.startsWith('brand_context_read_limit_'));
  }

  /** Script calls (the read limit's one command) Redis has run, asked on `redis`'s own connection. */
  async function scriptCalls(redis: Redis): Promise<number> {
    const stats = await redis.info('commandstats');
    return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  }

  const statuses = (responses: LightMyRequestResponse[]) => responses.map((response) => response.statusCode);

  it('names where Redis is for the logs, without the password', async () => {
    const redis = await connectRedis(`redis://:${PASSWORD}@127.0.0.1:${await freePort()}/2`);
    clients.push(redis);
    expect(redisAddress(redis)).toBe(`127.0.0.1:${String(redis.options.port)}`);
  });

  it('counts the reads of two nodes against one budget', async () => {
    const prefix = `brand-context-test:${randomUUID()}`;
    const a = await node(await ready(await connectRedis(SHARED_REDIS_URL)), prefix);
    const b = await node(await ready(await connectRedis(SHARED_REDIS_URL)), prefix);
    const key = await newKey();
    const { workspaceId } = fixture();
    const answers = [];
    for (const app of [a, b, a, b, a, b]) answers.push(await readContext(app.app, workspaceId, { key }));
    expect(statuses(answers)).toEqual([200, 200, 200, 200, 429, 429]);
    expect(answers.map((response) => response.headers.ratelimit?.toString().split(';t=')[0])).toEqual([
      '"reads";r=3',
      '"reads";r=2',
      '"reads";r=1',
      '"reads";r=0',
      '"reads";r=0',
      '"reads";r=0',
    ]);
    // Another key still reads on either node.
    expect((await readContext(b.app, workspaceId, { key: await newKey() })).statusCode).toBe(200);
  });

  it('goes on reading while Redis is unreachable, each node still refusing past the budget', async () => {
    const port = await freePort();
    const app = await node(await connectRedis(`redis://:${PASSWORD}@127.0.0.1:${port}`));
    const key = await newKey();
    const answers = [];
    for (let i = 0; i < 6; i++) answers.push(await readContext(app.app, fixture().workspaceId, { key }));
    expect(statuses(answers)).toEqual([200, 200, 200, 200, 429, 429]);
    const warnings = app.logs.filter((line) => line.includes('Redis is unreachable'));
    expect(warnings).toHaveLength(1);
    expect(app.logs.join('\n')).not.toContain(PASSWORD);
  });

  it('falls back to counting on the node when Redis stops mid-run, back to Redis once it returns, and never logs its password', async () => {
    const port = await freePort();
    let server = await startOwnRedis(port);
    try {
      const redis = await ready(await connectRedis(`redis://:${PASSWORD}@127.0.0.1:${port}`));
      const app = await node(redis);
      const key = await newKey();
      const { workspaceId } = fixture();
      const before = [
        await readContext(app.app, workspaceId, { key }),
        await readContext(app.app, workspaceId, { key }),
      ];
      expect(statuses(before)).toEqual([200, 200]);

      // Frozen: Redis holds the connection but answers nothing; a read waits at most the command timeout.
      server.kill('SIGSTOP');
      expect((await readContext(app.app, workspaceId, { key })).statusCode).toBe(200);
      server.kill('SIGCONT');

      const closed = next(redis, 'close');
      server.kill('SIGTERM');
      await once(server, 'exit');
      await closed;
      // The node's own count began with the frozen read: three more, then refused.
      const after = [];
      for (let i = 0; i < 5; i++) after.push(await readContext(app.app, workspaceId, { key }));
      expect(statuses(after)).toEqual([200, 200, 200, 429, 429]);
      expect(app.logs.filter((line) => line.includes('Redis is unreachable'))).toHaveLength(1);

      // A new, empty Redis on the same address: the client reconnects and the shared count starts afresh.
      const reconnected = next(redis, 'ready');
      server = await startOwnRedis(port);
      await reconnected;
      const back = await readContext(app.app, workspaceId, { key });
      expect(back.statusCode).toBe(200);
      expect(back.headers.ratelimit).toMatch(/^"reads";r=3;t=/);
      expect(app.logs.filter((line) => line.includes('Redis is back'))).toHaveLength(1);
      expect(app.logs.join('\n')).not.toContain(PASSWORD);
    } finally {
      await stopOwnRedis(server);
    }
  });

  it('never logs a wrong Redis password that the server refused', async () => {
    const port = await freePort();
    const server = await startOwnRedis(port);
    try {
      const wrong = `wrong-${randomUUID()}`;
      const redis = await connectRedis(`redis://:${wrong}@127.0.0.1:${port}`);
      const app = await node(redis);
      await once(redis, 'error');
      const key = await newKey();
      expect((await readContext(app.app, fixture().workspaceId, { key })).statusCode).toBe(200);
      expect(app.logs.filter((line) => line.includes('Redis is unreachable'))).toEqual([]);
      const warnings = app.logs.filter((line) => line.includes('Redis refused the password'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('WRONGPASS');
      expect(warnings[0]).toContain('"level":50');
      expect(app.logs.filter((line) => line.includes('Redis is back'))).toEqual([]);
      expect(await readLimitMetrics(app)).toEqual([
        'brand_context_read_limit_shared 0',
        'brand_context_read_limit_local_total 1',
      ]);
      expect(app.logs.join('\n')).not.toContain(wrong);
      expect(app.logs.join('\n')).not.toContain(PASSWORD);
    } finally {
      await stopOwnRedis(server);
    }
  });

  it('leaves a stalled Redis alone after its first slow read: the next reads are counted on the node without asking it', async () => {
    const port = await freePort();
    const server = await startOwnRedis(port);
    try {
      const redis = await ready(await connectRedis(`redis://:${PASSWORD}@127.0.0.1:${port}`));
      const app = await node(redis, undefined, 600_000);
      const key = await newKey();
      const { workspaceId } = fixture();
      expect((await readContext(app.app, workspaceId, { key })).statusCode).toBe(200);
      expect(await readLimitMetrics(app)).toEqual([
        'brand_context_read_limit_shared 1',
        'brand_context_read_limit_local_total 0',
      ]);
      const before = await scriptCalls(redis);

      server.kill('SIGSTOP');
      const during = [];
      for (let i = 0; i < 20; i++)
        during.push(await readContext(app.app, workspaceId, { key: await newKey() }));
      expect(statuses(during)).toEqual(Array<number>(20).fill(200));
      expect(await readLimitMetrics(app)).toEqual([
        'brand_context_read_limit_shared 0',
        'brand_context_read_limit_local_total 20',
      ]);
      server.kill('SIGCONT');

      // Only the first read of the stall was sent to Redis, which ran it on waking up.
      expect((await scriptCalls(redis)) - before).toBe(1);
      const warnings = app.logs.filter((line) => line.includes('Redis is unreachable'));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('Redis did not answer within 200 ms');
    } finally {
      await stopOwnRedis(server);
    }
  });

  it('asks a Redis that resumed on the same connection again after a while, and says it is back', async () => {
    const port = await freePort();
    const server = await startOwnRedis(port);
    try {
      const redis = await ready(await connectRedis(`redis://:${PASSWORD}@127.0.0.1:${port}`));
      const app = await node(redis, undefined, 50);
      const key = await newKey();
      const { workspaceId } = fixture();
      expect((await readContext(app.app, workspaceId, { key })).headers.ratelimit).toMatch(/^"reads";r=3;/);
      server.kill('SIGSTOP');
      expect((await readContext(app.app, workspaceId, { key })).statusCode).toBe(200);
      server.kill('SIGCONT');

      // No reconnection: the client stays ready throughout, so only a read that Redis answers proves it back.
      expect(redis.status).toBe('ready');
      let answer;
      for (let i = 0; i < 1000 && !app.logs.some((line) => line.includes('Redis is back')); i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        answer = await readContext(app.app, workspaceId, { key });
      }
      expect(app.logs.filter((line) => line.includes('Redis is back'))).toHaveLength(1);
      // Redis counted the stalled read when it woke: the shared count goes on from there.
      expect(answer?.headers.ratelimit).toMatch(/^"reads";r=1;/);
      expect((await readLimitMetrics(app))[0]).toBe('brand_context_read_limit_shared 1');
    } finally {
      await stopOwnRedis(server);
    }
  });
});
