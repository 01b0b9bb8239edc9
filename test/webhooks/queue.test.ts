import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { publishEvent } from '../../src/services/webhooks/events.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import type { Deps } from '../../src/services/shared/deps.js';
import { createWebhook, type WebhookComponents } from '../../src/services/webhooks/webhooks.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { brandUpdatedEvent } from '#test/support/fixtures/webhooks.js';

const iso = (ms: number) => new Date(ms).toISOString();

describeEachBackend('the delivery queue', (backend) => {
  let database: TestDatabase;
  let store: Store;
  /** A second connection pool on the same database: another node. */
  let otherNode: Store;
  let workspaceId: string;
  let webhookId: string;
  let webhookDeps: Deps & WebhookComponents;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    otherNode = await openStore(database.config);
    const deps = { store, clock: systemClock };
    workspaceId = (await createWorkspace(deps, OPERATOR, { name: 'Queue' })).id;
    webhookDeps = { ...deps, secrets: await SecretBox.load(store), webhookSettings: { allowPrivate: true } };
    webhookId = (
      await createWebhook(webhookDeps, OPERATOR, workspaceId, {
        url: 'http://127.0.0.1:9/hooks',
        events: ['*'],
      })
    ).id;
  });

  afterAll(async () => {
    await otherNode.close();
    await store.close();
    await database.drop();
  });

  async function publish(count: number, at = Date.now() - 1000): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      await store.transaction((tx) => publishEvent(tx, iso(at), brandUpdatedEvent(workspaceId, index + 1)));
    }
  }

  /** A new workspace with `count` endpoints, each subscribed to brand.updated. */
  async function workspaceWithEndpoints(
    name: string,
    count: number,
  ): Promise<{ workspaceId: string; webhookIds: string[] }> {
    const workspace = (await createWorkspace({ store, clock: systemClock }, OPERATOR, { name })).id;
    const webhookIds: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const url = `http://127.0.0.1:9/${name}/${String(index)}`;
      webhookIds.push(
        (await createWebhook(webhookDeps, OPERATOR, workspace, { url, events: ['brand.updated'] })).id,
      );
    }
    return { workspaceId: workspace, webhookIds };
  }

  /** One brand.updated event in `workspace`, due at `at`: a delivery to each of its endpoints. */
  async function publishTo(workspace: string, at: number): Promise<void> {
    await store.transaction((tx) => publishEvent(tx, iso(at), brandUpdatedEvent(workspace)));
  }

  /**
   * Another node. SQLite's nodes are processes (a second pool in this one would wait on the first's lock
   * forever, as better-sqlite3 blocks the thread): there, claims in one process queue on its connection instead.
   */
  function peer(): Store {
    return backend.name === 'postgres' ? otherNode : store;
  }

  /** One round of four claims at once, alternating this node and the other; every delivery they leased. */
  async function claimAtOnce(round: number, now: number, perEndpoint?: number) {
    const claims = await Promise.all(
      [store, peer(), store, peer()].map((node, index) =>
        node.deliveries.claim({
          lease: `node-${String(round)}-${String(index)}`,
          now: iso(now),
          leaseUntil: iso(now + 60_000),
          limit: 15,
          perEndpoint,
        }),
      ),
    );
    return claims.flat();
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

  it('gives each due delivery to one node only, however many claim at once', async () => {
    await drain();
    await publish(40);
    const now = Date.now();
    const ids: string[] = [];
    // Claims at once may find the endpoint taken by another (it is skipped, not waited for): claim until none is left.
    for (let round = 0; round < 20 && ids.length < 40; round += 1) {
      ids.push(...(await claimAtOnce(round, now)).map((delivery) => delivery.id));
    }
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
    await drain();
  });

  it("claims round-robin across workspaces: one workspace's many due deliveries, older and already in flight, do not keep another's waiting", async () => {
    await drain();
    const noisy = await workspaceWithEndpoints('Noisy', 10);
    const quiet = await workspaceWithEndpoints('Quiet', 2);
    const now = Date.now();
    const claim = (node: Store, lease: string, limit: number) =>
      node.deliveries.claim({ lease, now: iso(now), leaseUntil: iso(now + 60_000), limit, perEndpoint: 1 });
    const node = peer();
    // Two noisy events (20 deliveries), a minute older than the quiet one; another node holds three of them.
    await publishTo(noisy.workspaceId, now - 60_000);
    await publishTo(noisy.workspaceId, now - 60_000);
    expect(await claim(node, 'other-node', 3)).toHaveLength(3);
    await publishTo(quiet.workspaceId, now - 1000);

    // The quiet workspace has none in flight: its delivery is the next one claimed, by any node.
    const [next] = await claim(store, 'this-node', 1);
    expect(next?.workspaceId).toBe(quiet.workspaceId);
    // Then the quiet one's second endpoint, and the noisy one's: it counts the three it has in flight.
    const following = await claim(store, 'this-node', 4);
    expect(following.filter((delivery) => delivery.workspaceId === quiet.workspaceId)).toHaveLength(1);
    expect(following.filter((delivery) => delivery.workspaceId === noisy.workspaceId)).toHaveLength(3);
    await drain();
  });

  it('never leases more than perEndpoint deliveries of one endpoint at a time, on any node, oldest first', async () => {
    await drain();
    const { workspaceId: single } = await workspaceWithEndpoints('Single', 1);
    const now = Date.now();
    for (let index = 0; index < 6; index += 1) await publishTo(single, now - 60_000 + index);
    const node = peer();
    const claim = (node: Store, lease: string, perEndpoint: number) =>
      node.deliveries.claim({ lease, now: iso(now), leaseUntil: iso(now + 60_000), limit: 10, perEndpoint });

    const [first, ...more] = await claim(store, 'one', 1);
    expect(more).toEqual([]);
    expect(await claim(node, 'two', 1)).toEqual([]);
    expect(await claim(store, 'three', 1)).toEqual([]);
    // Two at a time allows one more; settling one makes room for the next.
    const [second, ...none] = await claim(node, 'four', 2);
    expect(none).toEqual([]);
    expect(await claim(store, 'five', 2)).toEqual([]);
    if (!first || !second) throw new Error('nothing was claimed');
    expect(first.createdAt < second.createdAt).toBe(true);
    await store.deliveries.settle(
      first.id,
      'one',
      { attempt: 1, attemptedAt: iso(now), responseStatus: 200, durationMs: 1, error: null },
      { status: 'succeeded', nextAttemptAt: null },
    );
    const [third] = await claim(node, 'six', 2);
    expect(third?.createdAt).toBe(iso(now - 60_000 + 2));
    await drain();
  });

  it('keeps to one lease per endpoint while several nodes claim at once', async () => {
    await drain();
    const many = await workspaceWithEndpoints('Many', 20);
    const now = Date.now();
    for (let index = 0; index < 3; index += 1) await publishTo(many.workspaceId, now - 1000 + index);
    const endpoints: string[] = [];
    for (let round = 0; round < 5; round += 1) {
      endpoints.push(...(await claimAtOnce(round, now, 1)).map((delivery) => delivery.webhookId));
    }
    expect(endpoints).toHaveLength(20);
    expect(new Set(endpoints).size).toBe(20);
    await drain();
  });

  it('claims no delivery of an endpoint backing off until its backoff passes, and all of them once it is lifted', async () => {
    await drain();
    const backingOff = await workspaceWithEndpoints('Backing off', 2);
    const now = Date.now();
    await publishTo(backingOff.workspaceId, now - 1000);
    await publishTo(backingOff.workspaceId, now - 1000);
    const [failing, healthy] = backingOff.webhookIds as [string, string];
    await store.deliveries.backOff(failing, iso(now + 60_000));
    const claim = (at: number, lease: string) =>
      store.deliveries.claim({ lease, now: iso(at), leaseUntil: iso(at + 600_000), limit: 10 });

    const claimed = await claim(now, 'during');
    expect(claimed.map((delivery) => delivery.webhookId)).toEqual([healthy, healthy]);
    const after = await claim(now + 60_001, 'after');
    expect(after.map((delivery) => delivery.webhookId)).toEqual([failing, failing]);
    for (const delivery of after) await store.deliveries.release(delivery.id, 'after');

    // Backing off again, then lifted: due again at once.
    await store.deliveries.backOff(failing, iso(now + 120_000));
    expect(await claim(now, 'again')).toEqual([]);
    await store.deliveries.backOff(failing, null);
    expect(await claim(now, 'lifted')).toHaveLength(2);
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
