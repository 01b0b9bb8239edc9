import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { OPERATOR } from '../../src/services/audit.js';
import { publishEvent } from '../../src/services/events.js';
import { SecretBox } from '../../src/services/secret-box.js';
import { WebhookService } from '../../src/services/webhooks.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';

const iso = (ms: number) => new Date(ms).toISOString();

describeEachBackend('the delivery queue', (backend) => {
  let database: TestDatabase;
  let store: Store;
  /** A second connection pool on the same database: another node. */
  let otherNode: Store;
  let workspaceId: string;
  let webhookId: string;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    otherNode = await openStore(database.config);
    const deps = { store, clock: systemClock };
    workspaceId = (await createWorkspace(deps, OPERATOR, { name: 'Queue' })).id;
    const webhooks = new WebhookService(deps, await SecretBox.load(store), { allowPrivate: true });
    webhookId = (
      await webhooks.create(OPERATOR, workspaceId, { url: 'http://127.0.0.1:9/hooks', events: ['*'] })
    ).id;
  });

  afterAll(async () => {
    await otherNode.close();
    await store.close();
    await database.drop();
  });

  async function publish(count: number, at = Date.now() - 1000): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      await store.transaction((tx) =>
        publishEvent(tx, iso(at), { workspaceId, type: 'brand.updated', data: { index } }),
      );
    }
  }

  async function drain(): Promise<void> {
    const now = Date.now();
    for (;;) {
      const claimed = await store.deliveries.claim({
        lease: 'drain',
        now: iso(now + 10 * 3_600_000),
        leaseUntil: iso(now + 20 * 3_600_000),
        limit: 100,
      });
      if (claimed.length === 0) return;
      for (const delivery of claimed) {
        await store.deliveries.settle(
          delivery.id,
          'drain',
          {
            attempt: delivery.attempts + 1,
            attemptedAt: iso(now),
            responseStatus: 200,
            durationMs: 1,
            error: null,
          },
          { status: 'succeeded', nextAttemptAt: null },
        );
      }
    }
  }

  it('gives each due delivery to one of two nodes claiming at once', async () => {
    await drain();
    await publish(40);
    const now = Date.now();
    // SQLite's nodes are processes (a second pool in this one would wait on the first's lock forever, as
    // better-sqlite3 blocks the thread): claims in one process queue on its connection instead.
    const node = backend.name === 'postgres' ? otherNode : store;
    const claims = await Promise.all(
      [store, node, store, node].map((node, index) =>
        node.deliveries.claim({
          lease: `node-${String(index)}`,
          now: iso(now),
          leaseUntil: iso(now + 60_000),
          limit: 15,
        }),
      ),
    );
    const ids = claims.flat().map((delivery) => delivery.id);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    await drain();
  });

  it('frees a delivery whose lease ran out, and records nothing for the node that lost it', async () => {
    await drain();
    await publish(1);
    const now = Date.now();
    const [dead] = await store.deliveries.claim({
      lease: 'dead-node',
      now: iso(now),
      leaseUntil: iso(now + 1000),
      limit: 10,
    });
    if (!dead) throw new Error('nothing was claimed');
    // Within the lease nobody else gets it; after it, another node does.
    expect(
      await otherNode.deliveries.claim({
        lease: 'live-node',
        now: iso(now + 500),
        leaseUntil: iso(now + 60_000),
        limit: 10,
      }),
    ).toEqual([]);
    const [taken] = await otherNode.deliveries.claim({
      lease: 'live-node',
      now: iso(now + 1001),
      leaseUntil: iso(now + 60_000),
      limit: 10,
    });
    expect(taken?.id).toBe(dead.id);

    const attempt = { attempt: 1, attemptedAt: iso(now), responseStatus: 200, durationMs: 5, error: null };
    const settled = { status: 'succeeded', nextAttemptAt: null } as const;
    expect(await store.deliveries.settle(dead.id, 'dead-node', attempt, settled)).toBe(false);
    expect(await otherNode.deliveries.settle(dead.id, 'live-node', attempt, settled)).toBe(true);
    expect(await store.deliveries.attempts(dead.id)).toHaveLength(1);
  });

  it('makes a released delivery due again at once, unattempted', async () => {
    await drain();
    await publish(1);
    const now = Date.now();
    const [claimed] = await store.deliveries.claim({
      lease: 'stopping',
      now: iso(now),
      leaseUntil: iso(now + 60_000),
      limit: 10,
    });
    if (!claimed) throw new Error('nothing was claimed');
    await store.deliveries.release(claimed.id, 'stopping');
    const [again] = await otherNode.deliveries.claim({
      lease: 'other',
      now: iso(now),
      leaseUntil: iso(now + 60_000),
      limit: 10,
    });
    expect(again).toMatchObject({ id: claimed.id, attempts: 0, status: 'pending' });
    await drain();
  });

  it('claims nothing that is not due yet', async () => {
    await drain();
    const now = Date.now();
    await publish(1, now + 60_000);
    expect(
      await store.deliveries.claim({
        lease: 'early',
        now: iso(now),
        leaseUntil: iso(now + 60_000),
        limit: 10,
      }),
    ).toEqual([]);
    await drain();
    expect(webhookId).toMatch(/^wh_/);
  });
});
