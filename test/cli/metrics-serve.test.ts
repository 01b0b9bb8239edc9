import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_EMAIL_FROM } from '../../src/config.js';
import { queueEmail } from '../../src/services/email/queue.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { killAllChildren, ServerProcess, setUp } from './cli-process.js';

const ENCRYPTION_KEY = randomBytes(32);
const METRICS_TOKEN = randomBytes(24).toString('hex');
const CAPTURED = 'brand_context_delivery_outcomes_total{channel="email",outcome="captured"} 1';

describeEachBackend('brand-context serve: METRICS_TOKEN and METRICS', (backend) => {
  let database: TestDatabase | undefined;
  let store: Store | undefined;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
  });
  afterAll(async () => {
    await killAllChildren();
    await store?.close();
    await database?.drop();
  });

  function startServer(env: Record<string, string>): Promise<ServerProcess> {
    return ServerProcess.start([], {
      databaseUrl: setUp(database, 'the suite').url,
      env: { BRAND_CONTEXT_ENCRYPTION_KEY: ENCRYPTION_KEY.toString('base64'), ...env },
    });
  }

  it("guards /metrics with METRICS_TOKEN, and counts what the node's delivery worker did", async () => {
    const server = await startServer({ METRICS_TOKEN });
    const scrape = (authorization?: string) =>
      fetch(`${server.baseUrl}/metrics`, { headers: authorization ? { authorization } : {} });
    const refused = await scrape();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('metrics_token_required');
    expect((await scrape('Bearer not-the-token-at-all')).status).toBe(401);
    // A scraper misconfigured to send the token in the URL is refused, and the token is not logged.
    expect((await fetch(`${server.baseUrl}/metrics?token=${METRICS_TOKEN}`)).status).toBe(401);

    const ready = setUp(store, 'the suite');
    await queueEmail(ready, await SecretBox.load(ready, ENCRYPTION_KEY), new Date().toISOString(), {
      workspaceId: null,
      source: 'account',
      from: DEFAULT_EMAIL_FROM,
      to: ['ada@example.com'],
      subject: 'Welcome',
      text: 'Choose a password.',
    });
    // The worker captures the email (no SMTP_URL) on its next poll: scrape until it has.
    let text = '';
    for (let attempt = 0; attempt < 100 && !text.includes(CAPTURED); attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 100));
      const response = await scrape(`Bearer ${METRICS_TOKEN}`);
      expect(response.status).toBe(200);
      text = await response.text();
    }
    expect(text).toContain(CAPTURED);
    expect(text).not.toContain(METRICS_TOKEN);
    expect(await server.stop(), server.describe()).toEqual({ code: 0, signal: null });
    expect(server.stdout).not.toContain(METRICS_TOKEN);
    expect(
      server.logLines().map((line) => JSON.parse(line) as { url?: string; status?: number }),
    ).toContainEqual(expect.objectContaining({ url: '/metrics?token=[REDACTED]', status: 401 }));
  });

  // Nothing of the database's: one backend is enough.
  if (backend.name === 'sqlite')
    it('has no /metrics with METRICS=off, and warns that METRICS_TOKEN then guards nothing', async () => {
      const server = await startServer({ METRICS: 'off', METRICS_TOKEN });
      expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404);
      expect(await server.stop(), server.describe()).toEqual({ code: 0, signal: null });
      expect(
        server.logLines().map((line) => JSON.parse(line) as { level: number; msg: string }),
      ).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: 'METRICS_TOKEN is set but METRICS=off: there is no /metrics for it to guard; unset one of them',
        }),
      );
    });
});
