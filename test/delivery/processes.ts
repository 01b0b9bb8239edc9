import { randomBytes } from 'node:crypto';
import type { CreatedKey } from '../../src/contract/keys.js';
import { systemClock } from '../../src/core/clock.js';
import { OPERATOR } from '../../src/services/audit.js';
import { seedDemo } from '../../src/services/demo.js';
import type { Deps } from '../../src/services/deps.js';
import { WebhookSecrets } from '../../src/services/webhook-secrets.js';
import { WebhookService } from '../../src/services/webhooks.js';
import { openStore } from '../../src/store/open-store.js';
import type { DeliveryAttemptRecord, DeliveryRecord, Store } from '../../src/store/store.js';
import { ServerProcess } from '../cli/cli-process.js';
import type { TestDatabase } from '../support/databases.js';

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

/** `brand-context serve` on the database, its worker configured by DELIVERY_ENV and `env`. */
export function startServer(
  database: TestDatabase,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return ServerProcess.start([], { databaseUrl: database.url, env: { ...DELIVERY_ENV, ...env } });
}

export async function openTestStore(database: TestDatabase): Promise<{ store: Store; deps: Deps }> {
  const store = await openStore(database.config);
  return { store, deps: { store, clock: systemClock } };
}

export interface Endpoint {
  workspaceId: string;
  webhookId: string;
  /** whsec_…: what the receiver verifies signatures with. */
  secret: string;
  owner: { email: string; password: string };
}

/** The demo workspace, and an endpoint at `url` subscribed to every event (made after the seed's own events). */
export async function createEndpoint(deps: Deps, url: string): Promise<Endpoint> {
  const seed = await seedDemo(deps);
  const webhooks = new WebhookService(deps, new WebhookSecrets(deps.store, ENCRYPTION_KEY), {
    allowPrivate: true,
  });
  const webhook = await webhooks.create(OPERATOR, seed.workspace_id, { url, events: ['*'] });
  return { workspaceId: seed.workspace_id, webhookId: webhook.id, secret: webhook.secret, owner: seed.owner };
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

export interface LoggedDelivery extends DeliveryRecord {
  /** The delivery_attempts rows, oldest first. */
  attemptLog: DeliveryAttemptRecord[];
}

/** Every delivery of the endpoint as the database has it, with its attempts. */
export async function deliveryLog(store: Store, endpoint: Endpoint): Promise<LoggedDelivery[]> {
  const deliveries = await store.deliveries.list(endpoint.workspaceId, endpoint.webhookId, { limit: 10_000 });
  return Promise.all(
    deliveries.map(async (delivery) => ({
      ...delivery,
      attemptLog: await store.deliveries.attempts(delivery.id),
    })),
  );
}
