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

/** Longer than serve gives attempts in flight when it stops (8 s), shorter than an attempt's timeout (10 s). */
const OUTLASTS_THE_GRACE_MS = 9000;

describeEachBackend('A server stopped with SIGTERM while a webhook attempt is in flight', (backend) => {
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

  it('lets the attempt finish, records it as succeeded, and exits 0 after logging "stopped"', async () => {
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    receiver.delayMs = 2000;
    const [endpoint, server] = await Promise.all([createEndpoint(deps, receiver.url), startServer(database)]);
    const key = await createKeyThrough(
      server,
      await signIn(server, endpoint.owner),
      endpoint.workspaceId,
      'In flight at shutdown',
    );
    const arrival = await receiver.nth(0);

    server.child.kill('SIGTERM');
    expect(await server.waitForExit()).toEqual({ code: 0, signal: null });

    expect(server.logLines().some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    expect(server.stderr).toBe('');
    expect(verifiedEvent(endpoint.secret, arrival)).toMatchObject({
      type: 'brand_key.created',
      data: { key: { id: key.id } },
    });
    const log = await deliveryLog(store, endpoint);
    expect(log).toMatchObject([
      { eventId: arrival.id, status: 'succeeded', attempts: 1, responseStatus: 200, nextAttemptAt: null },
    ]);
    expect(log[0]?.durationMs).toBeGreaterThanOrEqual(1900);
    expect(log[0]?.attemptLog).toMatchObject([{ attempt: 1, responseStatus: 200, error: null }]);
    // Settled: no server has anything left to send it again.
    expect(receiver.arrivals).toHaveLength(1);
  }, 60_000);

  it('aborts an attempt that outlasts the grace period, records no attempt, exits 0, and the next server sends the delivery, recorded once', async () => {
    const receiver = await WebhookReceiver.start();
    receivers.push(receiver);
    receiver.delayMs = OUTLASTS_THE_GRACE_MS;
    const [endpoint, server] = await Promise.all([createEndpoint(deps, receiver.url), startServer(database)]);
    await createKeyThrough(
      server,
      await signIn(server, endpoint.owner),
      endpoint.workspaceId,
      'Outlasts the shutdown',
    );
    const aborted = await receiver.nth(0);

    server.child.kill('SIGTERM');
    expect(await server.waitForExit()).toEqual({ code: 0, signal: null });
    expect(server.stderr).toBe('');
    // Given back unattempted: due at once, held by no lease.
    const [released] = await deliveryLog(store, endpoint);
    expect(released).toMatchObject({ status: 'pending', attempts: 0, attemptLog: [] });
    const held = await store.deliveries.get(endpoint.workspaceId, endpoint.webhookId, released?.id ?? '');
    expect(held?.leased).toBe(false);

    receiver.delayMs = 0;
    const next = await startServer(database);
    const resent = await receiver.nth(1);
    // The same event under the same webhook-id: a receiver that deduplicates by it acts on it once.
    expect(resent.id).toBe(aborted.id);
    expect(verifiedEvent(endpoint.secret, resent)).toMatchObject({
      id: aborted.id,
      type: 'brand_key.created',
    });
    const { value: log } = await pollUntil(
      () => deliveryLog(store, endpoint),
      (deliveries) => deliveries[0]?.status === 'succeeded',
      { timeoutMs: 5000, intervalMs: 50 },
    );
    expect(await next.stop()).toEqual({ code: 0, signal: null });
    expect(log).toMatchObject([{ id: released?.id, status: 'succeeded', attempts: 1 }]);
    expect(log[0]?.attemptLog).toMatchObject([{ attempt: 1, responseStatus: 200 }]);
    expect(receiver.arrivals).toHaveLength(2);
  }, 60_000);
});
