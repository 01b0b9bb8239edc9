import { expect, it } from 'vitest';
import type { CreatedKey } from '../../src/contract/keys.js';
import type { ServerProcess } from '../cli/cli-process.js';
import { describeEachBackend } from '#test/support/databases.js';
import { repeatedIds, verifiedEvent } from '#test/support/webhook-receiver.js';
import { createKeyThrough, signIn, useDeliverySuite } from './processes.js';

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
  const suite = useDeliverySuite(backend);

  it('deliver 200 events made through both at once exactly once each to an endpoint that always answers 200, each with one recorded attempt', async () => {
    const receiver = await suite.receiver();
    const [endpoint, ...servers] = await Promise.all([
      suite.createEndpoint(receiver.url),
      suite.startServer({ DELIVERY_WORKERS: '8' }),
      suite.startServer({ DELIVERY_WORKERS: '8' }),
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
    const log = await suite.succeededLog(endpoint, { timeoutMs: 10_000, intervalMs: 100 });
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
