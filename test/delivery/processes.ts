import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import type { CreatedKey } from '../../src/contract/keys.js';
import { systemClock } from '../../src/core/clock.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { seedDemo } from '../../src/services/demo/demo.js';
import type { Deps } from '../../src/services/shared/deps.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { createWebhook } from '../../src/services/webhooks/webhooks.js';
import { openStore } from '../../src/store/open-store.js';
import type { DeliveryAttemptRecord, DeliveryRecord, Store } from '../../src/store/store.js';
import { killAllChildren, pollUntil, ServerProcess, setUp } from '../cli/cli-process.js';
import type { TestBackend, TestDatabase } from '#test/support/databases.js';
import { WebhookReceiver } from '#test/support/webhook-receiver.js';

/**
 * `brand-context serve` children with their delivery worker, and what the tests make and read on the same
 * database from the test process, through the services and the store as the CLI would.
 */

/** Shared by the servers and the test process, so the secrets they seal open in every one of them. */
const ENCRYPTION_KEY = randomBytes(32);

/** Fast retries, the shortest lease, and endpoints on 127.0.0.1 allowed. */
export const DELIVERY_ENV: Readonly<Record<string, string>> = {
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  DELIVERY_RETRY_SCHEDULE: '1s,1s,1s,1s,1s',
  DELIVERY_LEASE_SECONDS: '15',
  BRAND_CONTEXT_ENCRYPTION_KEY: ENCRYPTION_KEY.toString('base64'),
};

export interface Endpoint {
  workspaceId: string;
  webhookId: string;
  /** whsec_…: what the receiver verifies signatures with. */
  secret: string;
  owner: { email: string; password: string };
}

export interface LoggedDelivery extends DeliveryRecord {
  /** The delivery_attempts rows, oldest first. */
  attemptLog: DeliveryAttemptRecord[];
}

export interface DeliverySuite {
  /** Open on the suite's database from the test process. */
  readonly store: Store;
  readonly deps: Deps;
  /** A receiver on 127.0.0.1 that answers 200, or refuses connections until it listens when `down`. */
  receiver(state?: 'up' | 'down'): Promise<WebhookReceiver>;
  /** `brand-context serve` on the database, its worker configured by DELIVERY_ENV and `env`. */
  startServer(env?: Record<string, string>): Promise<ServerProcess>;
  /** The demo workspace, and an endpoint at `url` subscribed to every event (made after the seed's own events). */
  createEndpoint(url: string): Promise<Endpoint>;
  /** Every delivery of the endpoint as the database has it, with its attempts. */
  deliveryLog(endpoint: Endpoint): Promise<LoggedDelivery[]>;
  /** The endpoint's delivery log once it has deliveries and every one of them has succeeded. */
  succeededLog(
    endpoint: Endpoint,
    poll?: { timeoutMs?: number; intervalMs?: number },
  ): Promise<LoggedDelivery[]>;
}

/**
 * For a describe block: a fresh database of `backend` with a store open on it, set up before its tests;
 * after them every server is killed, every receiver closed and the database dropped.
 */
export function useDeliverySuite(backend: TestBackend): DeliverySuite {
  let database: TestDatabase | undefined;
  let store: Store | undefined;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
  });

  afterAll(async () => {
    await killAllChildren();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await store?.close();
    await database?.drop();
  });

  const ready = <T>(value: T | undefined) => setUp(value, 'the delivery suite');
  const suite: DeliverySuite = {
    get store() {
      return ready(store);
    },
    get deps() {
      return { store: ready(store), clock: systemClock };
    },
    async receiver(state = 'up') {
      const receiver = state === 'up' ? await WebhookReceiver.start() : await WebhookReceiver.down();
      receivers.push(receiver);
      return receiver;
    },
    startServer: (env = {}) =>
      ServerProcess.start([], { databaseUrl: ready(database).url, env: { ...DELIVERY_ENV, ...env } }),
    async createEndpoint(url) {
      const seed = await seedDemo(suite.deps);
      const secrets = await SecretBox.load(suite.store, ENCRYPTION_KEY);
      const webhook = await createWebhook(
        { ...suite.deps, secrets, webhookSettings: { allowPrivate: true } },
        OPERATOR,
        seed.workspace_id,
        { url, events: ['*'] },
      );
      return {
        workspaceId: seed.workspace_id,
        webhookId: webhook.id,
        secret: webhook.secret,
        owner: seed.owner,
      };
    },
    async deliveryLog(endpoint) {
      const deliveries = await suite.store.deliveries.list(endpoint.workspaceId, endpoint.webhookId, {
        limit: 10_000,
      });
      return Promise.all(
        deliveries.map(async (delivery) => ({
          ...delivery,
          attemptLog: await suite.store.deliveries.attempts(delivery.id),
        })),
      );
    },
    async succeededLog(endpoint, { timeoutMs = 5000, intervalMs = 50 } = {}) {
      const { value } = await pollUntil(
        () => suite.deliveryLog(endpoint),
        (deliveries) =>
          deliveries.length > 0 && deliveries.every((delivery) => delivery.status === 'succeeded'),
        { timeoutMs, intervalMs },
      );
      return value;
    },
  };
  return suite;
}

async function expectJson<T>(response: Response, status: number): Promise<T> {
  const text = await response.text();
  if (response.status !== status) {
    throw new Error(`${response.url} answered ${String(response.status)}, not ${String(status)}: ${text}`);
  }
  return JSON.parse(text) as T;
}

/** A user token for the owner, from the server's sign-in. */
export async function signIn(server: ServerProcess, owner: Endpoint['owner']): Promise<string> {
  const response = await fetch(`${server.baseUrl}/auth/v1/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(owner),
  });
  return (await expectJson<{ access_token: string }>(response, 200)).access_token;
}

/** Creates a brand read key through the server's API: one brand_key.created event per endpoint. */
export async function createKeyThrough(
  server: ServerProcess,
  token: string,
  workspaceId: string,
  name: string,
): Promise<CreatedKey> {
  const response = await fetch(`${server.baseUrl}/api/v1/workspaces/${workspaceId}/brand-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name }),
  });
  return expectJson<CreatedKey>(response, 201);
}

/** Signs the endpoint's owner in on `server` and creates a brand read key there under `name`. */
export async function createKeyAsOwner(
  server: ServerProcess,
  endpoint: Endpoint,
  name: string,
): Promise<CreatedKey> {
  return createKeyThrough(server, await signIn(server, endpoint.owner), endpoint.workspaceId, name);
}
