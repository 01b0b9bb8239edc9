import { afterAll, beforeAll, expect, it } from 'vitest';
import type { CreatedKey } from '../../src/contract/keys.js';
import type { Deps } from '../../src/services/deps.js';
import type { Store } from '../../src/store/store.js';
import { killAllChildren, pollUntil, type ServerProcess } from '../cli/cli-process.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';
import {
  createEndpoint,
  createKeyThrough,
  deliveryLog,
  openTestStore,
  signIn,
  startServer,
} from './processes.js';
import { repeatedIds, verifiedEvent, WebhookReceiver } from '../support/webhook-receiver.js';

const EVENTS_PER_SERVER = 100;
/** Requests each server is sent at a time while the events are made. */
const CLIENTS_PER_SERVER = 10;

/** Creates `count` brand keys through `server`, `CLIENTS_PER_SERVER` requests at a time. */
async function createKeys(
  server: ServerProcess,
  token: string,
  workspaceId: string,
  count: number,
): Promise<CreatedKey[]> {
  const created: CreatedKey[] = [];
  let next = 0;
  const client = async () => {
    while (next < count) {
      next += 1;
      created.push(
        await createKeyThrough(server, token, workspaceId, `Key ${String(next)} via ${String(server.port)}`),
      );
    }
  };
  await Promise.all(Array.from({ length: CLIENTS_PER_SERVER }, client));
  return created;
}

describeEachBackend('Two servers on one database, both with workers', (backend) => {
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

  it('deliver 200 events made through both at once exactly once each to an endpoint that always answers 200, each with one recorded attempt', async () => {
    const [endpoint, ...servers] = await Promise.all([
      createEndpoint(deps, receiver.url),
      startServer(database, { DELIVERY_WORKERS: '8' }),
      startServer(database, { DELIVERY_WORKERS: '8' }),
    ]);
    // One token serves both: they share the database and so the token signing secret.
    const token = await signIn(servers[0], endpoint.owner);

    const keys = (
      await Promise.all(
        servers.map((server) => createKeys(server, token, endpoint.workspaceId, EVENTS_PER_SERVER)),
      )
    ).flat();
    expect(keys).toHaveLength(2 * EVENTS_PER_SERVER);

    await receiver.until(
      (arrivals) => new Set(arrivals.map((arrival) => arrival.id)).size >= keys.length,
      30_000,
    );
    const { value: log } = await pollUntil(
      () => deliveryLog(store, endpoint),
      (deliveries) => deliveries.every((delivery) => delivery.status === 'succeeded'),
      { timeoutMs: 10_000, intervalMs: 100 },
    );
    // Once both have stopped (attempts in flight finish first), no request can still be on its way.
    expect(await Promise.all(servers.map((server) => server.stop()))).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);

    expect(repeatedIds(receiver.arrivals)).toEqual([]);
    expect(receiver.arrivals).toHaveLength(keys.length);
    const events = receiver.arrivals.map((arrival) => verifiedEvent(endpoint.secret, arrival));
    expect(new Set(events.map((event) => event.type))).toEqual(new Set(['brand_key.created']));
    const keyIds = (event: { data: Record<string, unknown> }) => (event.data.key as { id: string }).id;
    expect(events.map(keyIds).sort()).toEqual(keys.map((key) => key.id).sort());

    expect(log).toHaveLength(keys.length);
    const notOnce = log.filter((delivery) => delivery.attempts !== 1 || delivery.attemptLog.length !== 1);
    expect(notOnce).toEqual([]);
    expect(new Set(log.map((delivery) => delivery.eventId))).toEqual(
      new Set(events.map((event) => event.id)),
    );
  }, 90_000);
});
