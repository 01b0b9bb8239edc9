import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_EMAIL_FROM } from '../../src/config.js';
import { queueEmail } from '../../src/services/email/queue.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { killAllChildren, ServerProcess, setUp } from '../cli/cli-process.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { SmtpRelay } from '#test/support/smtp-server.js';

/** Shared by the server and the test process, so the bodies one seals the other opens. */
const ENCRYPTION_KEY = randomBytes(32);
const CAPTURED_NOTICE = 'SMTP_URL is not set: email is captured, not sent';

describeEachBackend('brand-context serve and SMTP_URL', (backend) => {
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

  function startServer(env: Record<string, string> = {}): Promise<ServerProcess> {
    return ServerProcess.start([], {
      databaseUrl: setUp(database, 'the suite').url,
      env: { BRAND_CONTEXT_ENCRYPTION_KEY: ENCRYPTION_KEY.toString('base64'), ...env },
    });
  }

  it('sends queued email through the relay, and exits 0 on SIGTERM with its connections closed', async () => {
    const relay = await SmtpRelay.start();
    try {
      const server = await startServer({ SMTP_URL: relay.url });
      const ready = setUp(store, 'the suite');
      await queueEmail(ready, await SecretBox.load(ready, ENCRYPTION_KEY), new Date().toISOString(), {
        workspaceId: null,
        source: 'account',
        from: DEFAULT_EMAIL_FROM,
        to: ['ada@example.com'],
        subject: 'Welcome to Brand Context',
        text: 'Choose a password to start.',
      });

      const [received] = await relay.count(1);
      expect(received?.to).toEqual(['ada@example.com']);
      expect(received?.mail.text?.trim()).toBe('Choose a password to start.');
      // The relay's pooled connection is closed on the way out: nothing keeps the process alive.
      expect(await server.stop(), server.describe()).toEqual({ code: 0, signal: null });
      expect(server.stdout).not.toContain(CAPTURED_NOTICE);
    } finally {
      await relay.close();
    }
  });

  it('says once, when it starts without SMTP_URL, that email is captured and not sent', async () => {
    const server = await startServer();
    const notices = server.logLines().filter((line) => line.includes(CAPTURED_NOTICE));
    expect(notices).toHaveLength(1);
    expect(JSON.parse(notices[0] ?? '{}')).toMatchObject({ level: 40 });
    expect(await server.stop(), server.describe()).toEqual({ code: 0, signal: null });
  });
});
