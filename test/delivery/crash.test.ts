import { expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { verifiedEvent } from '#test/support/webhook-receiver.js';
import { createKeyAsOwner, useDeliverySuite } from './processes.js';

describeEachBackend('The delivery queue survives a node that dies', (backend) => {
  const suite = useDeliverySuite(backend);

  it('delivers a change committed just before the server was killed with SIGKILL while the endpoint was down, once the endpoint is up and a server runs again', async () => {
    const receiver = await suite.receiver('down');
    const [endpoint, first] = await Promise.all([suite.createEndpoint(receiver.url), suite.startServer()]);

    const key = await createKeyAsOwner(first, endpoint, 'Made just before the crash');
    first.child.kill('SIGKILL');
    expect(await first.waitForExit(), first.describe()).toEqual({ code: null, signal: 'SIGKILL' });
    expect(receiver.arrivals).toEqual([]);

    await receiver.listen();
    const second = await suite.startServer();
    // Within a retry (1 s) of the restart; or, if the killed worker held the delivery, once its lease (15 s) ran out.
    const event = verifiedEvent(endpoint.secret, await receiver.nth(0, 25_000));
    expect(event).toMatchObject({
      type: 'brand_key.created',
      workspace_id: endpoint.workspaceId,
      data: { key: { id: key.id, name: 'Made just before the crash' } },
    });

    const log = await suite.succeededLog(endpoint);
    expect(await second.stop(), second.describe()).toEqual({ code: 0, signal: null });
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
    const receiver = await suite.receiver();
    const endpoint = await suite.createEndpoint(receiver.url);
    const key = await createBrandKey(suite.deps, OPERATOR, {
      workspaceId: endpoint.workspaceId,
      name: 'Claimed by a node that died',
    });
    const now = Date.now();
    const leaseUntil = now + 3000;
    const claimed = await suite.store.deliveries.claim({
      lease: 'dead-node',
      now: new Date(now).toISOString(),
      leaseUntil: new Date(leaseUntil).toISOString(),
      limit: 10,
    });
    expect(claimed).toMatchObject([{ eventType: 'brand_key.created', webhookId: endpoint.webhookId }]);
    const [dead] = claimed;

    // The server starts while the dead node's lease still holds.
    const server = await suite.startServer();
    const arrival = await receiver.nth(0);
    expect(arrival.at).toBeGreaterThanOrEqual(leaseUntil);
    expect(verifiedEvent(endpoint.secret, arrival)).toMatchObject({
      id: dead?.eventId,
      type: 'brand_key.created',
      data: { key: { id: key.id } },
    });

    const log = await suite.succeededLog(endpoint);
    const late = await suite.store.deliveries.settle(
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
    expect(await server.stop(), server.describe()).toEqual({ code: 0, signal: null });
    expect(receiver.arrivals).toHaveLength(1);
    expect(log).toMatchObject([{ id: dead?.id, status: 'succeeded', attempts: 1 }]);
    expect(log[0]?.attemptLog).toMatchObject([{ attempt: 1, responseStatus: 200 }]);
    expect(await suite.deliveryLog(endpoint)).toEqual(log);
  }, 60_000);
});
