import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { systemClock } from '../../src/core/clock.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { WebhookSender } from '../../src/delivery/webhook-sender.js';
import { BRAND_AGENT_PATH } from '../../src/http/routes/brand-agent.js';
import { createLogger } from '../../src/logger.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { publishEvent } from '../../src/services/webhooks/events.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { Metrics } from '../../src/services/metrics/metrics.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { createWebhook } from '../../src/services/webhooks/webhooks.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { brandUpdatedEvent } from '#test/support/fixtures/webhooks.js';
import { call, problemOf, useFixture } from '#test/support/http-fixture.js';
import { WebhookReceiver } from '#test/support/webhook-receiver.js';

const TOKEN = 'metrics-token-0123456789abcdef';
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** Every sample of a scrape, by its series as written (`name{label="value",…}`). */
async function scrape(app: TestApp['app'], token?: string): Promise<Map<string, number>> {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  expect(response.statusCode, response.body).toBe(200);
  return samplesOf(response.body);
}

function samplesOf(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The samples of `name` (without `_bucket`, `_sum` … suffixes), by series. */
function family(samples: Map<string, number>, name: string): Record<string, number> {
  return Object.fromEntries(
    [...samples].filter(([series]) => series === name || series.startsWith(`${name}{`)),
  );
}

describeEachBackend('GET /metrics', (backend) => {
  const fixture = useFixture(backend, { app: { metrics: new Metrics(BRAND_AGENT_PATH) } });

  it('counts requests by route pattern, method and status after known traffic, and times the reads', async () => {
    const f = fixture();
    for (let read = 0; read < 3; read++)
      expect((await readContext(f.app, f.workspaceId, { key: f.brandKey })).statusCode).toBe(200);
    expect((await readContext(f.app, f.workspaceId, { key: f.otherBrandKey })).statusCode).toBe(403);
    expect((await readContext(f.app, f.workspaceId, { key: `brk_${'A'.repeat(36)}` })).statusCode).toBe(401);
    expect(
      (await call(f, f.brandKey, 'GET', `/nothing/here/${f.brandKey}?key=${f.brandKey}`)).statusCode,
    ).toBe(404);
    expect((await call(f, f.owner.token, 'GET', '/api/v1/workspaces')).statusCode).toBe(200);
    expect(
      (await call(f, f.owner.token, 'GET', `/api/v1/workspaces/${f.workspaceId}/brand`)).statusCode,
    ).toBe(200);

    const samples = await scrape(f.app);
    expect(family(samples, 'brand_context_http_requests_total')).toEqual({
      'brand_context_http_requests_total{route="/functions/v1/brand-agent",method="POST",status="200"}': 3,
      'brand_context_http_requests_total{route="/functions/v1/brand-agent",method="POST",status="403"}': 1,
      'brand_context_http_requests_total{route="/functions/v1/brand-agent",method="POST",status="401"}': 1,
      'brand_context_http_requests_total{route="unmatched",method="GET",status="404"}': 1,
      'brand_context_http_requests_total{route="/api/v1/workspaces",method="GET",status="200"}': 1,
      'brand_context_http_requests_total{route="/api/v1/workspaces/:id/brand",method="GET",status="200"}': 1,
    });
    expect(samples.get('brand_context_read_duration_seconds_count')).toBe(5);
    expect(samples.get('brand_context_read_duration_seconds_bucket{le="+Inf"}')).toBe(5);
    expect(samples.get('brand_context_read_duration_seconds_sum')).toBeGreaterThan(0);
    // The scrape itself is counted once it is answered.
    expect(family(await scrape(f.app), 'brand_context_http_requests_total')).toMatchObject({
      'brand_context_http_requests_total{route="/metrics",method="GET",status="200"}': 1,
    });
  });

  it('counts misses of the key and brand caches, then hits, and a change to the brand misses again', async () => {
    const f = fixture();
    const key = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'metrics' });
    const changeBrand = (description: string) =>
      replaceBrand(f.deps, OPERATOR, f.workspaceId, { ...parseBrandDocument(DEMO_BRAND), description });
    await changeBrand('Before the reads');
    const cacheCounts = async () => {
      const samples = await scrape(f.app);
      return Object.fromEntries(
        ['hits', 'misses'].flatMap((what) =>
          ['keys', 'brands'].map((cache) => [
            `${cache} ${what}`,
            samples.get(`brand_context_cache_${what}_total{cache="${cache}"}`) ?? 0,
          ]),
        ),
      );
    };
    const before = await cacheCounts();
    const delta = async () => {
      const now = await cacheCounts();
      return Object.fromEntries(
        Object.entries(now).map(([name, value]) => [name, value - (before[name] ?? 0)]),
      );
    };

    expect((await readContext(f.app, f.workspaceId, { key: key.key })).statusCode).toBe(200);
    expect(await delta()).toEqual({ 'keys hits': 0, 'brands hits': 0, 'keys misses': 1, 'brands misses': 1 });
    expect((await readContext(f.app, f.workspaceId, { key: key.key })).statusCode).toBe(200);
    expect(await delta()).toEqual({ 'keys hits': 1, 'brands hits': 1, 'keys misses': 1, 'brands misses': 1 });
    await changeBrand('Changed between the reads');
    expect((await readContext(f.app, f.workspaceId, { key: key.key })).statusCode).toBe(200);
    // The brand's change evicted the workspace's entries from both caches.
    expect(await delta()).toEqual({ 'keys hits': 1, 'brands hits': 1, 'keys misses': 2, 'brands misses': 2 });

    const samples = await scrape(f.app);
    expect(samples.get('brand_context_cache_entries{cache="keys"}')).toBeGreaterThanOrEqual(1);
    expect(samples.get('brand_context_cache_evictions_total{cache="keys"}')).toBe(0);
    expect(samples.get('brand_context_change_feed_up')).toBe(1);
    expect(samples.get('brand_context_change_feed_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts pinned versions in a cache of their own, which a later change of the brand leaves alone', async () => {
    const f = fixture();
    const key = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'pinned' });
    const pinned = { action: 'context', workspace_id: f.workspaceId, version: 1 };
    const counts = async () => {
      const samples = await scrape(f.app);
      return ['hits', 'misses'].map(
        (what) => samples.get(`brand_context_cache_${what}_total{cache="brand_versions"}`) ?? 0,
      );
    };
    expect(await counts()).toEqual([0, 0]);
    expect((await readContext(f.app, f.workspaceId, { key: key.key, body: pinned })).statusCode).toBe(200);
    expect(await counts()).toEqual([0, 1]);
    await replaceBrand(f.deps, OPERATOR, f.workspaceId, {
      ...parseBrandDocument(DEMO_BRAND),
      description: 'A later version',
    });
    expect((await readContext(f.app, f.workspaceId, { key: key.key, body: pinned })).statusCode).toBe(200);
    expect(await counts()).toEqual([1, 1]);
    expect((await scrape(f.app)).get('brand_context_cache_entries{cache="brand_versions"}')).toBe(1);
  });

  it('shows no key, token, raw URL or secret, whatever the requests carried', async () => {
    const f = fixture();
    await readContext(f.app, f.workspaceId, { key: f.brandKey });
    await call(f, f.apiKey, 'GET', `/functions/v1/brand-agent/${f.brandKey}?token=${f.owner.token}`);
    await call(f, f.owner.token, 'GET', `/api/v1/workspaces/${f.workspaceId}/brand-keys`);
    const response = await f.app.inject({ method: 'GET', url: '/metrics' });
    expect(response.headers['content-type']).toBe(PROMETHEUS_TEXT);
    for (const secret of [f.brandKey, f.apiKey, f.owner.token, f.workspaceId, 'brk_', 'wsk_', '?token'])
      expect(response.body).not.toContain(secret);
    expect(response.body).toContain('route="/api/v1/workspaces/:id/brand-keys"');
  });

  it('counts a URL it cannot decode under route "unmatched", and answers it with an X-Request-Id', async () => {
    const f = fixture();
    const response = await f.app.inject({ method: 'GET', url: '/%ZZ' });
    expect(response.statusCode).toBe(400);
    expect(response.headers['x-request-id']).toBe(problemOf(response).request_id);
    expect(
      family(await scrape(f.app), 'brand_context_http_requests_total')[
        'brand_context_http_requests_total{route="unmatched",method="GET",status="400"}'
      ],
    ).toBe(1);
  });

  it('exports process and event-loop metrics beside its own', async () => {
    const samples = await scrape(fixture().app);
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
    ])
      expect(samples.has(name), name).toBe(true);
  });
});

describeEachBackend('GET /metrics: the delivery queue', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let metrics: Metrics;
  let receiver: WebhookReceiver;
  let worker: DeliveryWorker | undefined;
  let workspaceId: string;

  beforeAll(async () => {
    database = await backend.create();
    metrics = new Metrics(BRAND_AGENT_PATH);
    testApp = await startTestApp(database, { metrics });
    receiver = await WebhookReceiver.start();
    const { deps } = testApp;
    workspaceId = (await createWorkspace(deps, OPERATOR, { name: 'Queue' })).id;
    const webhookDeps = { ...deps, webhookSettings: { allowPrivate: true } };
    await createWebhook(webhookDeps, OPERATOR, workspaceId, { url: receiver.url, events: ['*'] });
    await createWebhook(webhookDeps, OPERATOR, workspaceId, { url: receiver.url, events: ['*'] });
  });
  afterEach(async () => {
    await worker?.stop(1000);
    worker = undefined;
  });
  afterAll(async () => {
    await receiver.close();
    await testApp.close();
    await database.drop();
  });

  it('reports the jobs waiting by channel and status, then what the worker made of them', async () => {
    const { deps } = testApp;
    const at = new Date(Date.now() - 1000).toISOString();
    for (const index of [1, 2, 3])
      await deps.store.transaction((tx) => publishEvent(tx, at, brandUpdatedEvent(workspaceId, index)));
    expect(family(await scrape(testApp.app), 'brand_context_delivery_queue_depth')).toEqual({
      'brand_context_delivery_queue_depth{channel="webhook",status="pending"}': 6,
      'brand_context_delivery_queue_depth{channel="webhook",status="retrying"}': 0,
      'brand_context_delivery_queue_depth{channel="email",status="queued"}': 0,
      'brand_context_delivery_queue_depth{channel="email",status="deferred"}': 0,
    });

    worker = new DeliveryWorker({
      deps: { store: deps.store, clock: systemClock },
      secrets: await SecretBox.load(deps.store),
      sender: new WebhookSender({ allowPrivate: true }),
      logger: createLogger('silent'),
      concurrency: 4,
      retrySchedule: [60_000],
      leaseMs: 60_000,
      pollMs: 20,
      sweepMs: 3_600_000,
      metrics,
    });
    worker.start();
    await receiver.until((arrivals) => arrivals.length === 6);
    await worker.stop(1000);
    const samples = await scrape(testApp.app);
    expect(
      Object.values(family(samples, 'brand_context_delivery_queue_depth')).every((depth) => depth === 0),
    ).toBe(true);
    expect(family(samples, 'brand_context_delivery_outcomes_total')).toEqual({
      'brand_context_delivery_outcomes_total{channel="webhook",outcome="succeeded"}': 6,
    });
  });
});

// The console's files involve no storage: one backend is enough.
describe('GET /metrics with the console served', () => {
  const consoleDir = join(tmpdir(), `brand-context-console-${randomUUID()}`);
  let database: TestDatabase;
  let testApp: TestApp;
  beforeAll(async () => {
    await mkdir(join(consoleDir, 'assets'), { recursive: true });
    await writeFile(join(consoleDir, 'index.html'), '<!doctype html><title>Brand Context</title>');
    for (const file of ['index-SSYDRO9a.js', 'index-Bx81qZ0c.css'])
      await writeFile(join(consoleDir, 'assets', file), '');
    database = await sqliteBackend.create();
    testApp = await startTestApp(database, { consoleDir });
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
    await rm(consoleDir, { recursive: true, force: true });
  });

  it("counts the console's built files under one route, /assets/*, whatever their names", async () => {
    for (const url of ['/assets/index-SSYDRO9a.js', '/assets/index-Bx81qZ0c.css', '/sign-in'])
      expect((await testApp.app.inject({ method: 'GET', url })).statusCode, url).toBe(200);
    const requests = family(await scrape(testApp.app), 'brand_context_http_requests_total');
    expect(requests).toEqual({
      'brand_context_http_requests_total{route="/assets/*",method="GET",status="200"}': 2,
      'brand_context_http_requests_total{route="/sign-in",method="GET",status="200"}': 1,
    });
  });
});

// The token guard involves no storage: one backend is enough.
describe('GET /metrics with METRICS_TOKEN set', () => {
  let database: TestDatabase;
  let testApp: TestApp;
  beforeAll(async () => {
    database = await sqliteBackend.create();
    testApp = await startTestApp(database, { metricsToken: TOKEN });
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('answers 401 metrics_token_required without the token, and invalid_metrics_token to a wrong one', async () => {
    const missing = await testApp.app.inject({ method: 'GET', url: '/metrics' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(missing.headers['www-authenticate']).toBe('Bearer realm="brand-context"');
    expect(problemOf(missing)).toMatchObject({ code: 'metrics_token_required' });
    for (const authorization of [`Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`]) {
      const wrong = await testApp.app.inject({ method: 'GET', url: '/metrics', headers: { authorization } });
      expect(wrong.statusCode, authorization).toBe(401);
      expect(problemOf(wrong).code).toBe('invalid_metrics_token');
      expect(wrong.headers['www-authenticate']).toBe('Bearer realm="brand-context", error="invalid_token"');
      expect(wrong.body).not.toContain(TOKEN.slice(4));
    }
  });

  it('tells a scraper that sent the token another way than "Bearer <token>" what it sent, never the token', async () => {
    const details = new Map([
      [
        `Basic ${TOKEN}`,
        'A credential was sent with the Basic scheme; send the METRICS_TOKEN as "Authorization: Bearer <METRICS_TOKEN>".',
      ],
      [
        `Bearer ${TOKEN} extra`,
        'The Authorization header is not "Bearer <METRICS_TOKEN>": one token after Bearer, nothing else.',
      ],
      [
        TOKEN,
        'The Authorization header is not "Bearer <METRICS_TOKEN>": one token after Bearer, nothing else.',
      ],
      [
        `${TOKEN} ${TOKEN}`,
        'The Authorization header is not "Bearer <METRICS_TOKEN>": one token after Bearer, nothing else.',
      ],
    ]);
    for (const [authorization, detail] of details) {
      const refused = await testApp.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: { authorization },
      });
      expect(refused.statusCode, authorization).toBe(401);
      expect(refused.headers['www-authenticate']).toBe(
        'Bearer realm="brand-context", error="invalid_request"',
      );
      expect(problemOf(refused)).toMatchObject({ code: 'metrics_token_required', detail });
      expect(refused.body).not.toContain(TOKEN.slice(4));
    }
  });

  it('answers the metrics to the right token, which they never show', async () => {
    const response = await testApp.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(PROMETHEUS_TEXT);
    expect(response.body).toContain('# TYPE brand_context_http_requests_total counter');
    expect(response.body).not.toContain(TOKEN);
    // The refusals were counted under the route, not under their token.
    expect(
      family(samplesOf(response.body), 'brand_context_http_requests_total')[
        'brand_context_http_requests_total{route="/metrics",method="GET",status="401"}'
      ],
    ).toBeGreaterThan(0);
  });

  it('still answers while the database is out of reach, without the queue it cannot count', async () => {
    const down = await startTestApp(database, { metricsToken: TOKEN });
    try {
      await down.store.close();
      const samples = await scrape(down.app, TOKEN);
      expect(family(samples, 'brand_context_delivery_queue_depth')).toEqual({});
      expect(samples.has('process_cpu_seconds_total')).toBe(true);
    } finally {
      await down.app.close();
    }
  });

  it('has no /metrics with METRICS=off', async () => {
    const off = await startTestApp(database, { metrics: false });
    try {
      const response = await off.app.inject({ method: 'GET', url: '/metrics' });
      expect(response.statusCode).toBe(404);
      expect(problemOf(response).code).toBe('not_found');
    } finally {
      await off.app.close();
    }
  });
});
