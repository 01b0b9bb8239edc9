import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { parseDeliverySettings } from '../../src/config.js';
import { systemClock } from '../../src/core/clock.js';
import { WebhookSender } from '../../src/delivery/webhook-sender.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { createLogger } from '../../src/logger.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import type { Deps } from '../../src/services/shared/deps.js';
import { publishEvent } from '../../src/services/webhooks/events.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import {
  createWebhook,
  sendWebhookTest,
  type WebhookComponents,
} from '../../src/services/webhooks/webhooks.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { brandUpdatedEvent } from '#test/support/fixtures/webhooks.js';
import { HangingEndpoint, WebhookReceiver } from '#test/support/webhook-receiver.js';

/** More endpoints than the default limit allows one workspace: the test raises it. */
const HANGING_ENDPOINTS = 60;

describeEachBackend('fair webhook delivery', (backend) => {
  let database: TestDatabase;
  let store: Store;
  let deps: Deps;
  let webhookDeps: Deps & WebhookComponents;
  let secrets: SecretBox;
  let worker: DeliveryWorker | undefined;
  let hanging: HangingEndpoint | undefined;
  let receiver: WebhookReceiver | undefined;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    deps = { store, clock: systemClock };
    secrets = await SecretBox.load(store);
    webhookDeps = {
      ...deps,
      secrets,
      webhookSettings: { allowPrivate: true, endpointLimit: HANGING_ENDPOINTS },
    };
  });

  afterEach(async () => {
    await worker?.stop(0);
    worker = undefined;
    await hanging?.close();
    await receiver?.close();
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it(`delivers another workspace's test event within 5 s while ${String(HANGING_ENDPOINTS)} endpoints of one workspace accept and never answer`, async () => {
    hanging = await HangingEndpoint.start();
    const noisy = (await createWorkspace(deps, OPERATOR, { name: 'Noisy' })).id;
    for (let index = 0; index < HANGING_ENDPOINTS; index += 1) {
      await createWebhook(webhookDeps, OPERATOR, noisy, {
        url: hanging.url(`hooks/${String(index)}`),
        events: ['*'],
      });
    }
    receiver = await WebhookReceiver.start();
    const quiet = (await createWorkspace(deps, OPERATOR, { name: 'Quiet' })).id;
    const { id } = await createWebhook(webhookDeps, OPERATOR, quiet, {
      url: receiver.url,
      events: ['webhook.test'],
    });

    // The worker `serve` runs by default: its slots, schedule, lease, poll and 10 s timeout.
    const defaults = parseDeliverySettings({});
    worker = new DeliveryWorker({
      deps,
      secrets,
      sender: new WebhookSender({ allowPrivate: true }),
      logger: createLogger('silent'),
      concurrency: defaults.workers,
      retrySchedule: defaults.retrySchedule,
      leaseMs: defaults.leaseMs,
    });
    worker.start();
    // One change in the noisy workspace, one event to each of its endpoints; every slot is soon taken.
    await store.transaction((tx) => publishEvent(tx, new Date().toISOString(), brandUpdatedEvent(noisy)));
    await hanging.connections(defaults.workers);

    const sentAt = Date.now();
    await sendWebhookTest(webhookDeps, OPERATOR, quiet, id);
    const [arrival] = await receiver.count(1, 5_000);
    expect((arrival?.at ?? Infinity) - sentAt, 'ms until the quiet workspace’s event arrived').toBeLessThan(
      5_000,
    );
  }, 30_000);
});
