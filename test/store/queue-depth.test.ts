import { afterAll, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { publishEvent } from '../../src/services/webhooks/events.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { createWebhook } from '../../src/services/webhooks/webhooks.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { brandUpdatedEvent } from '#test/support/fixtures/webhooks.js';

const iso = (ms: number) => new Date(ms).toISOString();

/** `countQueued` of both job tables: what GET /metrics reports as the delivery queue's depth. */
describeEachBackend('Store contract: the delivery queue counted by status', (backend) => {
  let database: TestDatabase;
  let store: Store;
  let workspaceId: string;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    const deps = { store, clock: systemClock };
    workspaceId = (await createWorkspace(deps, OPERATOR, { name: 'Depth' })).id;
    const webhookDeps = {
      ...deps,
      secrets: await SecretBox.load(store),
      webhookSettings: { allowPrivate: true },
    };
    await createWebhook(webhookDeps, OPERATOR, workspaceId, {
      url: 'http://127.0.0.1:9/hooks',
      events: ['*'],
    });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('counts nothing in an empty queue', async () => {
    expect(await store.deliveries.countQueued()).toEqual([]);
    expect(await store.emailQueue.countQueued()).toEqual([]);
  });

  it('counts deliveries pending and retrying, and leaves settled ones out', async () => {
    const now = Date.now();
    for (const index of [1, 2, 3, 4])
      await store.transaction((tx) =>
        publishEvent(tx, iso(now - 1000), brandUpdatedEvent(workspaceId, index)),
      );
    expect(await store.deliveries.countQueued()).toEqual([{ status: 'pending', count: 4 }]);

    const claimed = await store.deliveries.claim({
      lease: 'depth',
      now: iso(now),
      leaseUntil: iso(now + 60_000),
      limit: 3,
    });
    const outcomes = [
      { status: 'succeeded', nextAttemptAt: null },
      { status: 'failed', nextAttemptAt: null },
      { status: 'retrying', nextAttemptAt: iso(now + 60_000) },
    ] as const;
    for (const [index, delivery] of claimed.entries()) {
      const outcome = outcomes[index];
      if (!outcome) continue;
      const attempt = { attempt: 1, attemptedAt: iso(now), responseStatus: 500, durationMs: 5, error: null };
      expect(await store.deliveries.settle(delivery.id, 'depth', attempt, outcome)).toBe(true);
    }
    // A claimed delivery not yet settled is still in the queue (in flight), as it was.
    expect(await store.deliveries.countQueued()).toEqual([
      { status: 'pending', count: 1 },
      { status: 'retrying', count: 1 },
    ]);
  });

  it('counts email recipients queued and deferred, and leaves settled ones out', async () => {
    const at = iso(Date.now() - 1000);
    const message = {
      id: 'em_depth0000000000000000000000',
      workspaceId,
      source: 'api' as const,
      from: 'Ada <ada@example.com>',
      toHeader: ['Bob <bob@example.com>'],
      ccHeader: [],
      replyTo: [],
      headers: {},
      tags: {},
      subject: 'Depth',
      body: 'v1.sealed',
      status: 'queued' as const,
      createdAt: at,
      updatedAt: at,
    };
    const recipients = ['bob', 'cat', 'dan'].map((name, index) => ({
      id: `er_depth${String(index).padStart(22, '0')}`,
      messageId: message.id,
      email: `${name}@example.com`,
      field: 'to' as const,
      status: 'queued' as const,
      attempts: 0,
      nextAttemptAt: at,
      lastResponse: null,
    }));
    await store.email.create(message, recipients, []);
    expect(await store.emailQueue.countQueued()).toEqual([{ status: 'queued', count: 3 }]);

    const now = Date.now();
    const claimed = await store.emailQueue.claim({
      lease: 'depth',
      now: iso(now),
      leaseUntil: iso(now + 60_000),
      limit: 2,
    });
    const [first, second] = claimed;
    if (!first || !second) throw new Error('two recipients should have been claimed');
    const settle = (id: string, status: 'sent' | 'deferred', nextAttemptAt: string | null, event: string) =>
      store.emailQueue.settle(id, 'depth', {
        eventId: event,
        status,
        attempts: 1,
        nextAttemptAt,
        response: status === 'sent' ? '250 ok' : '451 later',
        at: iso(now),
      });
    expect(await settle(first.recipient.id, 'sent', null, 'ee_depth1')).toBe(true);
    expect(await settle(second.recipient.id, 'deferred', iso(now + 60_000), 'ee_depth2')).toBe(true);
    expect(await store.emailQueue.countQueued()).toEqual([
      { status: 'deferred', count: 1 },
      { status: 'queued', count: 1 },
    ]);
  });
});
