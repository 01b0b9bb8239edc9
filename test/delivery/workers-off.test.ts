import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Deps } from '../../src/services/deps.js';
import type { Store } from '../../src/store/store.js';
import { killAllChildren, pollUntil } from '../cli/cli-process.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';
import {
  createEndpoint,
  createKeyThrough,
  deliveryLog,
  openTestStore,
  signIn,
  startServer,
} from './processes.js';
import { verifiedEvent, WebhookReceiver } from '../support/webhook-receiver.js';

/** Three of a worker's looks at the queue (every 500 ms). */
const SEVERAL_POLLS_MS = 1500;

describeEachBackend('DELIVERY_WORKERS=0', (backend) => {
  let database: TestDatabase;
  let store: Store;
  let deps: Deps;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    database = await backend.create();
    ({ store, deps } = await openTestStore(database));
    receiver = await WebhookReceiver.start();
  });

  afterAll(async () => {
    await killAllChildren();
    await receiver.close();
    await store.close();
    await database.drop();
  });

  it('makes a server queue events but send none; a server with workers on the same database sends them', async () => {
    const [endpoint, quiet] = await Promise.all([
      createEndpoint(deps, receiver.url),
      startServer(database, { DELIVERY_WORKERS: '0' }),
    ]);
    const key = await createKeyThrough(
      quiet,
      await signIn(quiet, endpoint.owner),
      endpoint.workspaceId,
      'Queued by a server without workers',
    );

    // Proving that nothing is sent takes waiting: long enough for a worker to have sent it several times over.
    await sleep(SEVERAL_POLLS_MS);
    expect(receiver.arrivals).toEqual([]);
    expect(await deliveryLog(store, endpoint)).toMatchObject([
      { eventType: 'brand_key.created', status: 'pending', attempts: 0, attemptLog: [] },
    ]);

    const sender = await startServer(database);
    const arrival = await receiver.nth(0);
    expect(verifiedEvent(endpoint.secret, arrival)).toMatchObject({
      type: 'brand_key.created',
      data: { key: { id: key.id } },
    });
    const { value: log } = await pollUntil(
      () => deliveryLog(store, endpoint),
      (deliveries) => deliveries[0]?.status === 'succeeded',
      { timeoutMs: 5000, intervalMs: 50 },
    );
    expect(log).toMatchObject([{ eventId: arrival.id, attempts: 1 }]);
    expect(quiet.running).toBe(true);
    expect(await Promise.all([quiet.stop(), sender.stop()])).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    expect(receiver.arrivals).toHaveLength(1);
  }, 60_000);
});
