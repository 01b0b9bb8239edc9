import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { verifiedEvent } from '#test/support/webhook-receiver.js';
import { createKeyAsOwner, useDeliverySuite } from './processes.js';

/** Longer than serve gives attempts in flight when it stops (8 s), shorter than an attempt's timeout (10 s). */
const OUTLASTS_THE_GRACE_MS = 9000;

describeEachBackend('A server stopped with SIGTERM while a webhook attempt is in flight', (backend) => {
  const suite = useDeliverySuite(backend);

  /** A server, and an endpoint at a receiver that answers after `delayMs`. */
  async function slowEndpoint(delayMs: number) {
    const receiver = await suite.receiver();
    receiver.delayMs = delayMs;
    const [endpoint, server] = await Promise.all([suite.createEndpoint(receiver.url), suite.startServer()]);
    return { receiver, endpoint, server };
  }

  it('lets the attempt finish, records it as succeeded, and exits 0 after logging "stopped"', async () => {
    const { receiver, endpoint, server } = await slowEndpoint(2000);
    const key = await createKeyAsOwner(server, endpoint, 'In flight at shutdown');
    const arrival = await receiver.nth(0);

    server.child.kill('SIGTERM');
    expect(await server.waitForExit(), server.describe()).toEqual({ code: 0, signal: null });

    expect(server.logLines().some((line) => line.includes('"msg":"stopped"'))).toBe(true);
    expect(server.stderr).toBe('');
    expect(verifiedEvent(endpoint.secret, arrival)).toMatchObject({
      type: 'brand_key.created',
      data: { key: { id: key.id } },
    });
    const log = await suite.deliveryLog(endpoint);
    expect(log).toMatchObject([
      { eventId: arrival.id, status: 'succeeded', attempts: 1, responseStatus: 200, nextAttemptAt: null },
    ]);
    expect(log[0]?.durationMs).toBeGreaterThanOrEqual(1900);
    expect(log[0]?.attemptLog).toMatchObject([{ attempt: 1, responseStatus: 200, error: null }]);
    // Settled: no server has anything left to send it again.
    expect(receiver.arrivals).toHaveLength(1);
  }, 60_000);

  it('aborts an attempt that outlasts the grace period, records no attempt, exits 0, and the next server sends the delivery, recorded once', async () => {
    const { receiver, endpoint, server } = await slowEndpoint(OUTLASTS_THE_GRACE_MS);
    await createKeyAsOwner(server, endpoint, 'Outlasts the shutdown');
    const aborted = await receiver.nth(0);

    server.child.kill('SIGTERM');
    expect(await server.waitForExit(), server.describe()).toEqual({ code: 0, signal: null });
    expect(server.stderr).toBe('');
    // Given back unattempted: due at once, held by no lease.
    const [released] = await suite.deliveryLog(endpoint);
    expect(released).toMatchObject({ status: 'pending', attempts: 0, attemptLog: [] });
    const held = await suite.store.deliveries.get(
      endpoint.workspaceId,
      endpoint.webhookId,
      released?.id ?? '',
    );
    expect(held?.leased).toBe(false);

    receiver.delayMs = 0;
    const next = await suite.startServer();
    const resent = await receiver.nth(1);
    // The same event under the same webhook-id: a receiver that deduplicates by it acts on it once.
    expect(resent.id).toBe(aborted.id);
    expect(verifiedEvent(endpoint.secret, resent)).toMatchObject({
      id: aborted.id,
      type: 'brand_key.created',
    });
    const log = await suite.succeededLog(endpoint);
    expect(await next.stop(), next.describe()).toEqual({ code: 0, signal: null });
    expect(log).toMatchObject([{ id: released?.id, status: 'succeeded', attempts: 1 }]);
    expect(log[0]?.attemptLog).toMatchObject([{ attempt: 1, responseStatus: 200 }]);
    expect(receiver.arrivals).toHaveLength(2);
  }, 60_000);
});
