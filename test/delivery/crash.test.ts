import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import type { Deps } from '../../src/services/deps.js';
import { createBrandKey } from '../../src/services/keys.js';
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

describeEachBackend('The delivery queue survives a node that dies', (backend) => {
  let database: TestDatabase;
  let store: Store;
  let deps: Deps;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    database = await backend.create();
    ({ store, deps } = await openTestStore(database));
  });

  afterAll(async () => {
    await killAllChildren();
    await Promise.all(receivers.map((receiver) => receiver.close()));
    await store.close();
    await database.drop();
  });

  it('delivers a change committed just before the server was killed with SIGKILL while the endpoint was down, once the endpoint is up and a server runs again', async () => {
    const receiver = await WebhookReceiver.down();
    receivers.push(receiver);
    const [endpoint, first] = await Promise.all([createEndpoint(deps, receiver.url), startServer(database)]);
    const token = await signIn(first, endpoint.owner);

    const key = await createKeyThrough(first, token, endpoint.workspaceId, 'Made just before the crash');
    first.child.kill('SIGKILL');
    expect(await first.waitForExit()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(receiver.arrivals).toEqual([]);

    await receiver.listen();
    const second = await startServer(database);
    // Within a retry (1 s) of the restart; or, if the killed worker held the delivery, once its lease (15 s) ran out.
    const event = verifiedEvent(endpoint.secret, await receiver.nth(0, 25_000));
    expect(event).toMatchObject({
      type: 'brand_key.created',
      workspace_id: endpoint.workspaceId,
      data: { key: { id: key.id, name: 'Made just before the crash' } },
    });

    const { value: log } = await pollUntil(
      () => deliveryLog(store, endpoint),
      (deliveries) => deliveries[0]?.status === 'succeeded',
      { timeoutMs: 5000, intervalMs: 50 },
    );
    expect(await second.stop()).toEqual({ code: 0, signal: null });
    expect(receiver.arrivals.map((each) => each.id)).toEqual([event.id]);
    expect(log).toHaveLength(1);
    const [delivery] = log;
    expect(delivery).toMatchObject({ eventId: event.id, status: 'succeeded', responseStatus: 200 });
    // Attempts made while the endpoint was down are in the log as failures without a response.
    const attempts = delivery?.attemptLog ?? [];
    expect(attempts.at(-1)).toMatchObject({ attempt: delivery?.attempts, responseStatus: 200, error: null });
    for (const failed of attempts.slice(0, -1)) expect(failed.responseStatus).toBeNull();
  }, 60_000);

  it('sends a delivery claimed by a node that then died once its lease runs out, and the dead node can no longer record an attempt', async () => {
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    const endpoint = await createEndpoint(deps, receiver.url);
    const key = await createBrandKey(deps, OPERATOR, {
      workspaceId: endpoint.workspaceId,
      name: 'Claimed by a node that died',
    });
    const now = Date.now();
    const leaseUntil = now + 3000;
    const claimed = await store.deliveries.claim({
      lease: 'dead-node',
      now: new Date(now).toISOString(),
      leaseUntil: new Date(leaseUntil).toISOString(),
      limit: 10,
    });
    expect(claimed).toMatchObject([{ eventType: 'brand_key.created', webhookId: endpoint.webhookId }]);
    const [dead] = claimed;

    // The server starts while the dead node's lease still holds.
    const server = await startServer(database);
    const arrival = await receiver.nth(0);
    expect(arrival.at).toBeGreaterThanOrEqual(leaseUntil);
    expect(verifiedEvent(endpoint.secret, arrival)).toMatchObject({
      id: dead?.eventId,
      type: 'brand_key.created',
      data: { key: { id: key.id } },
    });

    const { value: log } = await pollUntil(
      () => deliveryLog(store, endpoint),
      (deliveries) => deliveries[0]?.status === 'succeeded',
      { timeoutMs: 5000, intervalMs: 50 },
    );
    const late = await store.deliveries.settle(
      dead?.id ?? '',
      'dead-node',
      {
        attempt: 1,
        attemptedAt: new Date().toISOString(),
        responseStatus: 500,
        durationMs: 1,
        error: 'the dead node came back',
      },
      { status: 'failed', nextAttemptAt: null },
    );
    expect(late).toBe(false);
    expect(await server.stop()).toEqual({ code: 0, signal: null });
    expect(receiver.arrivals).toHaveLength(1);
    expect(log).toMatchObject([{ id: dead?.id, status: 'succeeded', attempts: 1 }]);
    expect(log[0]?.attemptLog).toMatchObject([{ attempt: 1, responseStatus: 200 }]);
    expect(await deliveryLog(store, endpoint)).toEqual(log);
  }, 60_000);
});
