import { setTimeout as sleep } from 'node:timers/promises';
import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { verifiedEvent } from '#test/support/webhook-receiver.js';
import { createKeyAsOwner, useDeliverySuite } from './processes.js';

/** Three of a worker's looks at the queue (every 500 ms). */
const SEVERAL_POLLS_MS = 1500;

describeEachBackend('DELIVERY_WORKERS=0', (backend) => {
  const suite = useDeliverySuite(backend);

  it('makes a server queue events but send none; a server with workers on the same database sends them', async () => {
    const receiver = await suite.receiver();
    const [endpoint, quiet] = await Promise.all([
      suite.createEndpoint(receiver.url),
      suite.startServer({ DELIVERY_WORKERS: '0' }),
    ]);
    const key = await createKeyAsOwner(quiet, endpoint, 'Queued by a server without workers');

    // Proving that nothing is sent takes waiting: long enough for a worker to have sent it several times over.
    await sleep(SEVERAL_POLLS_MS);
    expect(receiver.arrivals).toEqual([]);
    expect(await suite.deliveryLog(endpoint)).toMatchObject([
      { eventType: 'brand_key.created', status: 'pending', attempts: 0, attemptLog: [] },
    ]);

    const sender = await suite.startServer();
    const arrival = await receiver.nth(0);
    expect(verifiedEvent(endpoint.secret, arrival)).toMatchObject({
      type: 'brand_key.created',
      data: { key: { id: key.id } },
    });
    const log = await suite.succeededLog(endpoint);
    expect(log).toMatchObject([{ eventId: arrival.id, attempts: 1 }]);
    expect(quiet.running).toBe(true);
    expect(await Promise.all([quiet.stop(), sender.stop()])).toEqual([
      { code: 0, signal: null },
      { code: 0, signal: null },
    ]);
    expect(receiver.arrivals).toHaveLength(1);
  }, 60_000);
});
