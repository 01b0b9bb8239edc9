import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Webhook as Verifier } from 'standardwebhooks';
import { WEBHOOK_EVENT_TYPES } from '../../src/contract/webhooks.js';
import { systemClock } from '../../src/core/clock.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { type Resolver, WebhookSender } from '../../src/delivery/webhook-sender.js';
import { createLogger } from '../../src/logger.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { getBrand, replaceBrand } from '../../src/services/brand/brand.js';
import { saveBrandDraft } from '../../src/services/brand/draft.js';
import { createCampaign, scheduleCampaign, updateCampaign } from '../../src/services/campaigns/campaigns.js';
import type { Deps } from '../../src/services/shared/deps.js';
import { sweepKeyExpiry } from '../../src/services/keys/expiry.js';
import { KEY_SERVICES } from '../../src/services/keys/keys.js';
import { addMember, removeMember } from '../../src/services/accounts/members.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import {
  createWebhook,
  getDelivery,
  getWebhook,
  listDeliveries,
  listWebhooks,
  retryDelivery,
  revealWebhookSecret,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhook,
  type WebhookComponents,
} from '../../src/services/webhooks/webhooks.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { testAccountMail } from '#test/support/fixtures/account-email.js';
import { connectAndDisconnectApp } from '#test/support/fixtures/every-event.js';
import { DAY_MS, ManualClock } from '#test/support/clock.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { eventOf, WebhookReceiver } from '#test/support/webhook-receiver.js';

const DRAFT = { name: 'Launch', subject: 'Hello', preheader: '', body_html: '<p>Hi</p>', body_text: 'Hi' };

describeEachBackend('webhook delivery', (backend) => {
  let database: TestDatabase;
  let store: Store;
  let receiver: WebhookReceiver;
  /** The use cases run on real time, as the signatures' timestamps must (receivers check them). */
  let deps: Deps;
  /** Sealed in the store's own key, as `serve` seals without BRAND_CONTEXT_ENCRYPTION_KEY. */
  let secrets: SecretBox;
  /** `deps` with the suite's secret box and address rules (127.0.0.1 allowed). */
  let webhookDeps: Deps & WebhookComponents;
  let worker: DeliveryWorker | undefined;
  let workspaceId: string;

  function startWorker(
    options: {
      retrySchedule?: number[];
      resolve?: Resolver;
      allowPrivate?: boolean;
      secrets?: SecretBox;
    } = {},
  ) {
    worker = new DeliveryWorker({
      deps,
      secrets: options.secrets ?? secrets,
      sender: new WebhookSender({ allowPrivate: options.allowPrivate ?? true }, options.resolve),
      logger: createLogger('silent'),
      concurrency: 4,
      retrySchedule: options.retrySchedule ?? [100, 100],
      leaseMs: 60_000,
      pollMs: 20,
      sweepMs: 3_600_000,
    });
    worker.start();
  }

  async function endpoint(events: string[] = ['*'], url = receiver.url) {
    return createWebhook(webhookDeps, OPERATOR, workspaceId, { url, events: events as ['*'] });
  }

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    deps = { store, clock: systemClock };
    secrets = await SecretBox.load(store);
    webhookDeps = { ...deps, secrets, webhookSettings: { allowPrivate: true } };
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  beforeEach(async () => {
    receiver = await WebhookReceiver.start();
    workspaceId = (await createWorkspace(deps, OPERATOR, { name: 'Webhooks' })).id;
  });

  afterEach(async () => {
    await worker?.stop(1000);
    worker = undefined;
    await receiver.close();
  });

  it('delivers each event kind once, signed so that the standardwebhooks package verifies it', async () => {
    const { secret } = await endpoint();
    startWorker();
    const brandKey = await KEY_SERVICES.brand.create(deps, OPERATOR, { workspaceId, name: 'site' });
    await KEY_SERVICES.brand.revoke(deps, OPERATOR, workspaceId, brandKey.id);
    const apiKey = await KEY_SERVICES.api.create(deps, OPERATOR, { workspaceId, name: 'pipeline' });
    await KEY_SERVICES.api.revoke(deps, OPERATOR, workspaceId, apiKey.id);
    const emailKey = await KEY_SERVICES.email.create(deps, OPERATOR, { workspaceId, name: 'receipts' });
    await KEY_SERVICES.email.revoke(deps, OPERATOR, workspaceId, emailKey.id);
    const { workspace_id: _w, version: _v, updated_at: _u, ...brand } = await getBrand(deps, workspaceId);
    await replaceBrand(deps, OPERATOR, workspaceId, { ...brand, description: 'Changed for the webhook' });
    // Review on (in the store directly: no event of its own), and a draft saved.
    await store.workspaces.setBrandReview(workspaceId, 'required');
    await saveBrandDraft(deps, OPERATOR, workspaceId, { ...brand, description: 'Drafted for the webhook' });
    const campaign = await createCampaign(deps, OPERATOR, workspaceId, DRAFT);
    await updateCampaign(
      deps,
      OPERATOR,
      { workspaceId, id: campaign.id, ifMatch: undefined },
      { subject: 'Hi' },
    );
    await scheduleCampaign(deps, OPERATOR, { workspaceId, id: campaign.id, ifMatch: undefined });
    const member = await addMember(deps, await testAccountMail(store), OPERATOR, 'owner', workspaceId, {
      email: 'dana@example.com',
      role: 'member',
    });
    await removeMember(deps, OPERATOR, 'owner', workspaceId, member.user_id);
    const owner = await findOrCreateUser(deps, 'owner@example.com');
    // Made an owner in the store directly: no event of its own.
    await store.workspaces.addMember({
      workspaceId,
      userId: owner.id,
      role: 'owner',
      createdAt: new Date().toISOString(),
    });
    await connectAndDisconnectApp(
      webhookDeps,
      { kind: 'user', userId: owner.id, email: owner.email },
      workspaceId,
    );
    const { id: webhookId } = (await listWebhooks(webhookDeps, workspaceId))[0] ?? { id: '' };
    await sendWebhookTest(webhookDeps, OPERATOR, workspaceId, webhookId);
    // Expiry: 90-day keys made long ago (the operator's email keys expire only when asked to), with 13 days,
    // 2 days and none left (expired half a day ago) now.
    for (const kind of ['brand', 'api', 'email'] as const) {
      for (const daysLeft of [13, 2, -0.5]) {
        const madeAt = new ManualClock(Date.now() - (90 - daysLeft) * DAY_MS);
        await KEY_SERVICES[kind].create({ store, clock: madeAt }, OPERATOR, {
          workspaceId,
          name: `${String(daysLeft)} days`,
          ...(kind === 'email' && { expiresInDays: 90 }),
        });
      }
    }
    expect(await sweepKeyExpiry(deps, await testAccountMail(store))).toBe(9);
    // Each notice goes out once, however often (and on however many nodes) the sweep runs.
    expect(await sweepKeyExpiry(deps, await testAccountMail(store))).toBe(0);

    // The 16 changes, the 9 keys made for the sweep, and its 9 notices: 14 and 3 days before, and expired.
    const expected = 16 + 9 + 9;
    const received = await receiver.count(expected);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.arrivals).toHaveLength(expected);

    const verifier = new Verifier(secret);
    // Each body validates against its type's schema (src/contract/webhook-events.ts), with nothing more.
    const events = received.map((request) => {
      verifier.verify(request.body, request.headers);
      const event = eventOf(request.body);
      expect(request.headers['webhook-id']).toBe(event.id);
      expect(event.workspace_id).toBe(workspaceId);
      return event;
    });
    const types = events.map((event) => event.type);
    // Email's events come from its delivery: test/email/delivery.test.ts shows them arrive.
    for (const type of WEBHOOK_EVENT_TYPES.filter((type) => !type.startsWith('email.'))) {
      expect(types, type).toContain(type);
    }
    expect(types.filter((type) => type === 'brand_key.expiring')).toHaveLength(2);
    expect(types.filter((type) => type === 'api_key.expired')).toHaveLength(1);
    const notices = events.flatMap((event) =>
      'days_before_expiry' in event.data ? [event.data.days_before_expiry] : [],
    );
    expect(notices.sort()).toEqual([14, 14, 14, 3, 3, 3]);
    // No secret in any payload: neither a whole key (listings' 8-character prefixes are not secret) nor the
    // signing secret.
    for (const request of received) expect(request.body).not.toMatch(/(brk|wsk|tek)_[0-9A-Za-z]{36}|whsec_/);
  });

  it('sends the same webhook-id on every retry, and the log shows each attempt', async () => {
    const { id } = await endpoint(['brand_key.created']);
    receiver.statusFor = (index) => (index < 2 ? 500 : 200);
    startWorker();
    await KEY_SERVICES.brand.create(deps, OPERATOR, { workspaceId, name: 'retried' });
    const received = await receiver.count(3);
    expect(new Set(received.map((request) => request.headers['webhook-id'])).size).toBe(1);

    const [delivery] = (await listDeliveries(webhookDeps, workspaceId, id, { limit: 10 })).items;
    await expect
      .poll(async () => (await getDelivery(webhookDeps, workspaceId, id, delivery?.id ?? '')).status)
      .toBe('succeeded');
    const detail = await getDelivery(webhookDeps, workspaceId, id, delivery?.id ?? '');
    expect(detail.event_id).toBe(received[0]?.headers['webhook-id']);
    expect(detail.attempts).toBe(3);
    expect(detail.history.map((attempt) => attempt.response_status)).toEqual([500, 500, 200]);
    expect(detail.history[0]?.error).toMatch(/^HTTP 500/);
  });

  it('fails a delivery after the last retry, and a manual retry sends it once more with the same id', async () => {
    const { id } = await endpoint(['brand_key.created']);
    receiver.status = 503;
    startWorker({ retrySchedule: [50] });
    await KEY_SERVICES.brand.create(deps, OPERATOR, { workspaceId, name: 'failing' });
    await receiver.count(2);
    const [delivery] = (await listDeliveries(webhookDeps, workspaceId, id, { limit: 1 })).items;
    const deliveryId = delivery?.id ?? '';
    await expect
      .poll(async () => (await getDelivery(webhookDeps, workspaceId, id, deliveryId)).status)
      .toBe('failed');

    receiver.status = 204;
    await retryDelivery(webhookDeps, OPERATOR, workspaceId, id, deliveryId);
    await receiver.count(3);
    await expect
      .poll(async () => (await getDelivery(webhookDeps, workspaceId, id, deliveryId)).status)
      .toBe('succeeded');
    expect(new Set(receiver.arrivals.map((request) => request.headers['webhook-id'])).size).toBe(1);
  });

  it('signs with both secrets while a rotated one overlaps', async () => {
    const { id, secret: before } = await endpoint(['webhook.test']);
    const { secret: after } = await rotateWebhookSecret(webhookDeps, OPERATOR, workspaceId, id);
    startWorker();
    await sendWebhookTest(webhookDeps, OPERATOR, workspaceId, id);
    const [request] = await receiver.count(1);
    if (!request) throw new Error('nothing arrived');
    expect(String(request.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [before, after]) {
      expect(() => new Verifier(secret).verify(request.body, request.headers)).not.toThrow();
    }
  });

  it('fails, without sending, a delivery whose secret was sealed under another encryption key', async () => {
    const { id } = await endpoint(['webhook.test']);
    startWorker({ retrySchedule: [], secrets: await SecretBox.load(store, randomBytes(32)) });
    const { delivery_id: deliveryId } = await sendWebhookTest(webhookDeps, OPERATOR, workspaceId, id);
    await expect
      .poll(async () => (await getDelivery(webhookDeps, workspaceId, id, deliveryId)).status)
      .toBe('failed');
    expect((await getDelivery(webhookDeps, workspaceId, id, deliveryId)).error).toBe(
      'not sent: the signing secret was sealed with another BRAND_CONTEXT_ENCRYPTION_KEY',
    );
    expect(receiver.arrivals).toHaveLength(0);
  });

  it('answers secret_unreadable to a reveal on a node with another encryption key, and audits no reveal', async () => {
    const { id } = await endpoint(['webhook.test']);
    const elsewhere = { ...webhookDeps, secrets: await SecretBox.load(store, randomBytes(32)) };
    await expect(revealWebhookSecret(elsewhere, OPERATOR, workspaceId, id)).rejects.toMatchObject({
      code: 'secret_unreadable',
    });
    await revealWebhookSecret(webhookDeps, OPERATOR, workspaceId, id);
    const reveals = (await store.audit.list(workspaceId, { limit: 100 })).filter(
      (event) => event.action === 'webhook.secret_revealed' && event.targetId === id,
    );
    expect(reveals).toHaveLength(1);
  });

  it('does not queue events that a rolled-back change would have caused', async () => {
    const { id } = await endpoint();
    const campaign = await createCampaign(deps, OPERATOR, workspaceId, DRAFT);
    await expect(
      updateCampaign(deps, OPERATOR, { workspaceId, id: campaign.id, ifMatch: '"99"' }, { subject: 'Lost' }),
    ).rejects.toMatchObject({ code: 'version_mismatch' });
    const types = (await listDeliveries(webhookDeps, workspaceId, id, { limit: 10 })).items.map(
      (d) => d.event_type,
    );
    expect(types).toEqual(['campaign.created']);
  });

  describe('address rules at delivery time', () => {
    it('refuses a name that resolves to a loopback address, and sends nothing', async () => {
      const strict = { ...webhookDeps, webhookSettings: { allowPrivate: false } };
      const { id } = await createWebhook(strict, OPERATOR, workspaceId, {
        url: `https://hooks.rebinding.test:${new URL(receiver.url).port}/hooks`,
        events: ['webhook.test'],
      });
      // DNS answers a public address when the endpoint is saved and loopback when it is used.
      startWorker({
        allowPrivate: false,
        retrySchedule: [],
        resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
      });
      await sendWebhookTest(strict, OPERATOR, workspaceId, id);
      const [delivery] = (await listDeliveries(strict, workspaceId, id, { limit: 1 })).items;
      await expect
        .poll(async () => (await getDelivery(strict, workspaceId, id, delivery?.id ?? '')).status)
        .toBe('failed');
      const detail = await getDelivery(strict, workspaceId, id, delivery?.id ?? '');
      expect(detail.error).toBe('hooks.rebinding.test resolves to 127.0.0.1, which is not a public address');
      expect(detail.response_status).toBeNull();
      expect(receiver.arrivals).toHaveLength(0);
    });
  });

  it('disables an endpoint whose every delivery has failed for 5 days, and audits it', async () => {
    const { id } = await endpoint(['webhook.test']);
    receiver.status = 500;
    // The endpoint has been failing for 5 days already.
    await store.webhooks.update(workspaceId, id, {
      failingSince: new Date(Date.now() - 5 * DAY_MS - 1000).toISOString(),
      updatedAt: new Date().toISOString(),
    });
    startWorker({ retrySchedule: [] });
    await sendWebhookTest(webhookDeps, OPERATOR, workspaceId, id);
    await receiver.count(1);
    await expect
      .poll(async () => (await getWebhook(webhookDeps, workspaceId, id)).disabled_reason)
      .toBe('failing');
    expect((await getWebhook(webhookDeps, workspaceId, id)).enabled).toBe(false);
    const audit = await store.audit.list(workspaceId, { limit: 5 });
    expect(audit.map((event) => [event.action, event.actorType])).toContainEqual([
      'webhook.disabled',
      'system',
    ]);

    // Enabling it again starts afresh.
    const enabled = await updateWebhook(webhookDeps, OPERATOR, workspaceId, id, { enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
  });
});
