import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import type { AppServices } from '../../src/http/context.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { ManualClock } from './clock.js';
import { recordResponses } from './openapi-conformance.js';
import type { TestDatabase } from './databases.js';

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  clock: ManualClock;
  /**
   * The app's own deps (its store, clock, token keys…), as its use cases take them: `issueSession(f.deps, user)`
   * issues a user token the app accepts.
   */
  deps: AppServices['deps'];
  /** Every log line the app wrote, as text. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * The key-signing secret of every test app, so that nodes started on one database verify each other's keys
 * by signature, as nodes given one BRAND_CONTEXT_KEY_SIGNING_SECRET do.
 */
export const TEST_KEY_SIGNING_SECRET = Buffer.alloc(32, 'test key-signing secret');

export type TestAppOptions = Partial<Omit<AppOptions, 'store' | 'logger' | 'clock' | 'secrets'>> & {
  /** The logs' level: debug by default, which writes a line per successful request; serve's is info. */
  logLevel?: 'debug' | 'info';
};

/**
 * The real app on a real store (sealing in the store's own key, as `serve` without BRAND_CONTEXT_ENCRYPTION_KEY),
 * with a manual clock and its logs captured in memory.
 */
export async function startTestApp(
  database: TestDatabase,
  { logLevel = 'debug', ...options }: TestAppOptions = {},
): Promise<TestApp> {
  const store = await openStore(database.config);
  const clock = new ManualClock();
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(chunk.toString('utf8'));
      done();
    },
  });
  const secrets = await SecretBox.load(store);
  const app = buildApp({
    store,
    clock,
    logger: createLogger(logLevel, sink),
    secrets,
    keySigningSecret: TEST_KEY_SIGNING_SECRET,
    ...options,
  });
  // Every answer is checked against the app's /openapi.json (test/support/openapi-conformance.setup.ts).
  recordResponses(app, options);
  await app.ready();
  return {
    app,
    store,
    clock,
    deps: app.services.deps,
    logs,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** Listens on a free loopback port, for clients that need a real socket (fetch, Chromium, raw HTTP). */
export async function listenOnLoopback(app: FastifyInstance): Promise<number> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('the app listens on no TCP port');
  return address.port;
}
