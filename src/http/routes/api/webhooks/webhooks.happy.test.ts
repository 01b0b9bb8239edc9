import type { LightMyRequestResponse } from 'fastify';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../../../services/audit/audit.js';
import { createWorkspace } from '../../../../services/accounts/workspaces.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { DAY_MS } from '#test/support/clock.js';
import { campaignsApi, newDraft } from '#test/support/fixtures/campaigns.js';
import { type CreatedKey, keysUrl } from '#test/support/fixtures/keys.js';
import {
  type AuditEvent,
  auditLog,
  auditLogUrl,
  call,
  type Fixture,
  isoNow,
  outcome,
  useFixture,
} from '#test/support/http-fixture.js';
import { addUser, type TestUser } from '#test/support/users.js';
import { eventOf, eventOfType } from '#test/support/webhook-receiver.js';
import {
  type CreatedWebhook,
  type DeliveryDetail,
  type DeliveryPage,
  deliveriesOf,
  leaseDelivery,
  newWebhook,
  PRIVATE_URLS_ALLOWED,
  type QueuedDelivery,
  sendTest,
  settleDelivery,
  type Webhook,
  type WebhookSecret,
  webhooksApi,
} from '#test/support/fixtures/webhooks.js';
import { issueSession } from '../../../../services/auth/tokens.js';

const MINUTE_MS = 60_000;
const LOCAL_RECEIVER = 'http://127.0.0.1:8788/hooks';

/** The endpoint as GET answers it: what the create call answered, without the secret. */
function withoutSecret(created: CreatedWebhook): Webhook {
  const { secret: _secret, ...webhook } = created;
  return webhook;
}

/** A workspace of its own with an owner, so that what its endpoints receive comes from one test alone. */
async function ownWorkspace(f: Fixture): Promise<{ workspaceId: string; owner: TestUser }> {
  const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Hooked Co' });
  return { workspaceId, owner: await addUser(f, { workspaceId, role: 'owner' }) };
}

describeEachBackend('Webhooks API: the happy paths', (backend) => {
  const fixture = useFixture(backend, { app: PRIVATE_URLS_ALLOWED });

  describe('endpoints', () => {
    it('creates an endpoint with 201, a Location that reads it back, and a whsec_ secret the standardwebhooks package accepts', async () => {
      const f = fixture();
      f.clock.advance(MINUTE_MS);
      const api = webhooksApi(f, f.owner.token);
      const input = {
        url: LOCAL_RECEIVER,
        events: ['brand_key.created', 'campaign.scheduled'],
        description: 'Slack relay',
      };

      const response = await api.create(input);

      expect(response.statusCode).toBe(201);
      const created = response.json<CreatedWebhook>();
      expect(created).toEqual({
        ...input,
        id: expect.stringMatching(/^wh_/) as string,
        workspace_id: f.workspaceId,
        enabled: true,
        disabled_reason: null,
        failing_since: null,
        created_by: f.owner.user.id,
        created_at: isoNow(f),
        updated_at: isoNow(f),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]+={0,2}$/) as string,
      });
      expect(response.headers.location).toBe(`/api/v1/workspaces/${f.workspaceId}/webhooks/${created.id}`);
      // A receiver verifies with the secret as shown: sign a message with it and verify it back (the
      // package checks the timestamp against the real time).
      const receiver = new StandardWebhook(created.secret);
      const payload = '{"type":"webhook.test"}';
      const now = new Date();
      const headers = {
        'webhook-id': 'evt_1',
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': receiver.sign('evt_1', now, payload),
      };
      expect(receiver.verify(payload, headers)).toEqual({ type: 'webhook.test' });
      expect(() => new StandardWebhook(created.secret.replace('whsec_', 'whsec_!'))).toThrow();

      const read = await f.app.inject({
        method: 'GET',
        url: String(response.headers.location),
        headers: { authorization: `Bearer ${f.owner.token}` },
      });
      expect(read.statusCode).toBe(200);
      expect(read.json()).toEqual(withoutSecret(created));
    });

    it('lets an admin create an endpoint for every event with "*", without a description', async () => {
      const f = fixture();
      const response = await webhooksApi(f, f.admin.token).create({ url: LOCAL_RECEIVER, events: ['*'] });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toMatchObject({ events: ['*'], description: null, enabled: true });
    });

    it('lists the endpoints oldest first, with no secret anywhere in the listing', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownWorkspace(f);
      const created: CreatedWebhook[] = [];
      for (const events of [['*'], ['member.added'], ['campaign.created', 'campaign.updated']]) {
        f.clock.advance(1_000);
        created.push(await newWebhook(f, { events }, owner.token, workspaceId));
      }

      const response = await webhooksApi(f, owner.token, workspaceId).list();

      expect(response.statusCode).toBe(200);
      // Each with its creator, a member still (docs/management-api.md "Management API", removing a member).
      const creator = { user_id: owner.user.id, email: owner.user.email, former_member: false };
      expect(response.json()).toEqual({
        webhooks: created.map((webhook) => ({ ...withoutSecret(webhook), creator })),
      });
      expect(response.body).not.toContain('whsec_');
      expect(response.body).not.toContain('secret');
      for (const webhook of created) expect(response.body).not.toContain(webhook.secret.slice(6, 30));
    });

    it('lists nothing for a workspace without endpoints', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownWorkspace(f);
      const response = await webhooksApi(f, owner.token, workspaceId).list();
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ webhooks: [] });
    });

    it('changes each field on its own, moving updated_at and keeping the rest', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f, { description: 'First' });
      let current = withoutSecret(created);
      const changes: Record<string, unknown>[] = [
        { url: 'https://hooks.example.com/elsewhere' },
        { url: LOCAL_RECEIVER },
        { events: ['member.added', 'member.removed'] },
        { events: ['*'] },
        { description: 'Renamed' },
        { description: null },
        { description: '' },
      ];
      for (const change of changes) {
        f.clock.advance(MINUTE_MS);
        const response = await api.patch(created.id, change);
        expect(response.statusCode, JSON.stringify(change)).toBe(200);
        current = { ...current, ...change, updated_at: isoNow(f) };
        expect(response.json(), JSON.stringify(change)).toEqual(current);
        expect((await api.get(created.id)).json()).toEqual(current);
      }
      expect(current.created_at).toBe(created.created_at);
    });

    it('disables an endpoint by hand and enables it again, with its disabled_reason', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);

      f.clock.advance(MINUTE_MS);
      const disabled = await api.patch(created.id, { enabled: false });
      expect(disabled.statusCode).toBe(200);
      expect(disabled.json()).toMatchObject({
        enabled: false,
        disabled_reason: 'manual',
        updated_at: isoNow(f),
      });
      // Disabling again is no error and changes nothing that matters.
      const again = await api.patch(created.id, { enabled: false });
      expect(again.json()).toMatchObject({ enabled: false, disabled_reason: 'manual' });

      const enabled = await api.patch(created.id, { enabled: true });
      expect(enabled.statusCode).toBe(200);
      expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
      expect((await api.get(created.id)).json()).toMatchObject({ enabled: true, disabled_reason: null });
    });

    it('enables an endpoint the service disabled as failing, and forgets its failures', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);
      const since = new Date(f.clock.now() - 5 * DAY_MS).toISOString();
      // What the delivery worker does after five days of failures.
      await f.store.webhooks.update(f.workspaceId, created.id, {
        disabledAt: isoNow(f),
        disabledReason: 'failing',
        failingSince: since,
        updatedAt: isoNow(f),
      });
      expect((await api.get(created.id)).json()).toMatchObject({
        enabled: false,
        disabled_reason: 'failing',
        failing_since: since,
      });

      const enabled = await api.patch(created.id, { enabled: true });

      expect(enabled.json()).toMatchObject({ enabled: true, disabled_reason: null, failing_since: null });
    });

    it('deletes an endpoint with 204 and its deliveries with it: then 404 everywhere', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);
      const { delivery_id: deliveryId } = await sendTest(f, created.id);

      const response = await api.remove(created.id);

      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(outcome(await api.get(created.id))).toBe('404 webhook_not_found');
      expect(outcome(await api.deliveries(created.id))).toBe('404 webhook_not_found');
      expect(outcome(await api.delivery(created.id, deliveryId))).toBe('404 webhook_not_found');
      expect(outcome(await api.remove(created.id))).toBe('404 webhook_not_found');
      expect(JSON.stringify((await api.list()).json())).not.toContain(created.id);
      const tables = await snapshotTables(f.database.config);
      expect(JSON.stringify(tables.deliveries)).not.toContain(deliveryId);
    });
  });

  describe('the signing secret', () => {
    it('reveals the secret it was created with, uncached, and audits who looked', async () => {
      const f = fixture();
      const created = await newWebhook(f);

      const response = await webhooksApi(f, f.admin.token).secret(created.id);

      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ secret: created.secret, previous_secret_expires_at: null });
      expect(response.headers['cache-control']).toBe('no-store');
      const events = (await auditLog(f)).filter((event) => event.target.id === created.id);
      expect(events[0]).toMatchObject({
        action: 'webhook.secret_revealed',
        actor: { type: 'user', id: f.admin.user.id, email: f.admin.user.email },
        target: { type: 'webhook', id: created.id },
      });
    });

    it('rotates to a new secret; the old one signs beside it for 24 hours, then only the new one is shown', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);
      f.clock.advance(MINUTE_MS);

      const response = await api.rotate(created.id);

      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const rotated = response.json<WebhookSecret>();
      const overlapUntil = new Date(f.clock.now() + DAY_MS).toISOString();
      expect(rotated).toEqual({
        secret: expect.stringMatching(/^whsec_/) as string,
        previous_secret_expires_at: overlapUntil,
      });
      expect(rotated.secret).not.toBe(created.secret);
      expect(() => new StandardWebhook(rotated.secret)).not.toThrow();
      expect((await api.secret(created.id)).json()).toEqual(rotated);
      expect((await api.get(created.id)).json()).toMatchObject({ updated_at: isoNow(f) });

      f.clock.advance(DAY_MS + 1);
      try {
        // The fixture's sessions live an hour of the clock: a fresh one for a day later.
        const later = (await issueSession(f.deps, f.owner.user)).access_token;
        const shown = await webhooksApi(f, later).secret(created.id);
        expect(shown.json()).toEqual({ secret: rotated.secret, previous_secret_expires_at: null });
      } finally {
        f.clock.advance(-(DAY_MS + 1));
      }
    });
  });

  describe('test events and deliveries', () => {
    it('queues a webhook.test event with 202, and the delivery log shows it pending', async () => {
      const f = fixture();
      f.clock.advance(MINUTE_MS);
      // An endpoint receives its test event whatever it subscribes to.
      const created = await newWebhook(f, { events: ['member.removed'] });

      const response = await webhooksApi(f, f.owner.token).test(created.id);

      expect(response.statusCode).toBe(202);
      const queued = response.json<QueuedDelivery>();
      expect(queued).toEqual({
        delivery_id: expect.stringMatching(/^dlv_/) as string,
        event_id: expect.stringMatching(/^evt_/) as string,
        status: 'pending',
      });
      expect(await deliveriesOf(f, created.id)).toEqual([
        {
          id: queued.delivery_id,
          webhook_id: created.id,
          event_id: queued.event_id,
          event_type: 'webhook.test',
          status: 'pending',
          attempts: 0,
          response_status: null,
          duration_ms: null,
          error: null,
          created_at: isoNow(f),
          last_attempt_at: null,
          next_attempt_at: isoNow(f),
        },
      ]);
    });

    it('shows one delivery with the envelope it sends, byte for byte, and every attempt', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);
      const queued = await sendTest(f, created.id);

      const response = await api.delivery(created.id, queued.delivery_id);

      expect(response.statusCode).toBe(200);
      const detail = response.json<DeliveryDetail>();
      expect(detail).toMatchObject({
        id: queued.delivery_id,
        event_id: queued.event_id,
        event_type: 'webhook.test',
        status: 'pending',
        history: [],
      });
      expect(eventOf(detail.payload)).toEqual({
        id: queued.event_id,
        type: 'webhook.test',
        timestamp: detail.created_at,
        workspace_id: f.workspaceId,
        data: { webhook_id: created.id, message: expect.any(String) as string },
      });
      expect(detail.payload).not.toContain('whsec_');

      // A worker's failed attempt, then its successful retry, as the log shows them.
      const first = await leaseDelivery(f, queued.delivery_id);
      expect(first.payload).toBe(detail.payload);
      await settleDelivery(
        f,
        first,
        { responseStatus: 503, error: 'HTTP 503' },
        { status: 'retrying', nextAttemptAt: isoNow(f) },
      );
      f.clock.advance(5_000);
      await settleDelivery(
        f,
        await leaseDelivery(f, queued.delivery_id),
        { responseStatus: 200 },
        { status: 'succeeded', nextAttemptAt: null },
      );

      const after = (await api.delivery(created.id, queued.delivery_id)).json<DeliveryDetail>();

      expect(after).toMatchObject({
        status: 'succeeded',
        attempts: 2,
        response_status: 200,
        error: null,
        last_attempt_at: isoNow(f),
        next_attempt_at: null,
        payload: detail.payload,
      });
      expect(after.history).toEqual([
        {
          attempt: 1,
          attempted_at: new Date(f.clock.now() - 5_000).toISOString(),
          response_status: 503,
          duration_ms: 12,
          error: 'HTTP 503',
        },
        { attempt: 2, attempted_at: isoNow(f), response_status: 200, duration_ms: 12, error: null },
      ]);
    });

    it('pages the delivery log newest first, each delivery exactly once, and filters it by status', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);
      // The clock moves before every third test event: most share their created_at with others.
      const queued: QueuedDelivery[] = [];
      for (let i = 0; i < 8; i++) {
        if (i % 3 === 0) f.clock.advance(1_000);
        queued.push(await sendTest(f, created.id));
      }
      const ids = queued.map((delivery) => delivery.delivery_id);
      const [failed = '', succeeded = ''] = ids;
      await settleDelivery(
        f,
        await leaseDelivery(f, failed),
        { responseStatus: 410 },
        {
          status: 'failed',
          nextAttemptAt: null,
        },
      );
      await settleDelivery(
        f,
        await leaseDelivery(f, succeeded),
        { responseStatus: 204 },
        {
          status: 'succeeded',
          nextAttemptAt: null,
        },
      );

      /** Every page of the log with `query`, following next_cursor (at most 20 pages). */
      async function allPages(query: string): Promise<DeliveryPage[]> {
        const pages: DeliveryPage[] = [];
        let cursor: string | null = null;
        do {
          const suffix = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
          const response: LightMyRequestResponse = await api.deliveries(created.id, `?${query}${suffix}`);
          expect(response.statusCode).toBe(200);
          const page = response.json<DeliveryPage>();
          pages.push(page);
          cursor = page.next_cursor;
        } while (cursor !== null && pages.length < 20);
        return pages;
      }

      const pages = await allPages('limit=3');

      expect(pages.map((page) => page.items.length)).toEqual([3, 3, 2]);
      expect(pages.at(-1)?.next_cursor).toBeNull();
      const listed = pages.flatMap((page) => page.items);
      expect(listed.map((delivery) => delivery.id).sort()).toEqual([...ids].sort());
      const times = listed.map((delivery) => delivery.created_at);
      expect(times).toEqual([...times].sort().reverse());
      expect(listed.at(-1)?.created_at).toBe(listed.find((delivery) => delivery.id === failed)?.created_at);

      const byStatus = async (status: string) =>
        (await allPages(`status=${status}&limit=2`)).flatMap((page) =>
          page.items.map((delivery) => {
            expect(delivery.status).toBe(status);
            return delivery.id;
          }),
        );
      expect(await byStatus('failed')).toEqual([failed]);
      expect(await byStatus('succeeded')).toEqual([succeeded]);
      expect((await byStatus('pending')).sort()).toEqual(ids.slice(2).sort());
      expect(await byStatus('retrying')).toEqual([]);
      // 20 a page by default.
      expect((await api.deliveries(created.id)).json<DeliveryPage>()).toMatchObject({ next_cursor: null });
    });

    it('retries a failed delivery with 202: the same event, pending again and due now', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const created = await newWebhook(f);
      const queued = await sendTest(f, created.id);
      await settleDelivery(
        f,
        await leaseDelivery(f, queued.delivery_id),
        { responseStatus: 500, error: 'HTTP 500' },
        { status: 'failed', nextAttemptAt: null },
      );
      f.clock.advance(MINUTE_MS);

      const response = await api.retry(created.id, queued.delivery_id);

      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual({
        delivery_id: queued.delivery_id,
        event_id: queued.event_id,
        status: 'pending',
      });
      expect((await api.delivery(created.id, queued.delivery_id)).json()).toMatchObject({
        status: 'pending',
        attempts: 1,
        next_attempt_at: isoNow(f),
        history: [expect.objectContaining({ attempt: 1, response_status: 500 })],
      });
      // A retry of a pending delivery is accepted too: it is simply due now.
      expect((await api.retry(created.id, queued.delivery_id)).statusCode).toBe(202);
    });
  });

  describe('audit', () => {
    it('records every change to an endpoint with the user who made it, and no secret in any detail', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownWorkspace(f);
      const api = webhooksApi(f, owner.token, workspaceId);
      const created = await newWebhook(f, { events: ['*'] }, owner.token, workspaceId);
      await api.patch(created.id, { description: 'Audited', enabled: false });
      await api.patch(created.id, { enabled: true });
      await api.secret(created.id);
      const rotated = (await api.rotate(created.id)).json<WebhookSecret>();
      const queued = (await api.test(created.id)).json<QueuedDelivery>();
      expect((await api.retry(created.id, queued.delivery_id)).statusCode).toBe(202);
      expect((await api.remove(created.id)).statusCode).toBe(204);

      const page = await call(f, owner.token, 'GET', `${auditLogUrl(workspaceId)}?limit=200`);
      const events = page
        .json<{ events: AuditEvent[] }>()
        .events.filter((event) => event.target.type === 'webhook');

      const actor = { type: 'user', id: owner.user.id, email: owner.user.email };
      const target = { type: 'webhook', id: created.id };
      expect(events.map((event) => event.action)).toEqual([
        'webhook.deleted',
        'webhook.delivery_retried',
        'webhook.tested',
        'webhook.secret_rotated',
        'webhook.secret_revealed',
        'webhook.updated',
        'webhook.updated',
        'webhook.created',
      ]);
      for (const event of events) expect(event).toMatchObject({ actor, target });
      expect(events.at(-1)?.details).toEqual({ url: created.url, events: '*' });
      expect(events.at(-2)?.details).toMatchObject({ fields: 'enabled, description', enabled: false });
      expect(events[1]?.details).toEqual({ delivery_id: queued.delivery_id, event_id: queued.event_id });

      const log = JSON.stringify(events);
      expect(log).not.toContain('whsec_');
      for (const secret of [created.secret, rotated.secret]) expect(log).not.toContain(secret.slice(6, 30));
      const rows = (await snapshotTables(f.database.config)).audit_events;
      expect(JSON.stringify(rows)).not.toContain('whsec_');
    });
  });

  describe('events from changes', () => {
    it('queues brand_key.created for an endpoint of every event, with the key but never its secret', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownWorkspace(f);
      const everything = await newWebhook(f, { events: ['*'] }, owner.token, workspaceId);
      const keysOnly = await newWebhook(f, { events: ['brand_key.created'] }, owner.token, workspaceId);
      const elsewhere = await newWebhook(f, { events: ['campaign.created'] }, owner.token, workspaceId);
      const paused = await newWebhook(f, { events: ['*'] }, owner.token, workspaceId);
      expect(
        (await webhooksApi(f, owner.token, workspaceId).patch(paused.id, { enabled: false })).statusCode,
      ).toBe(200);

      const created = await call(f, owner.token, 'POST', keysUrl(f, 'brand-keys', workspaceId), {
        body: { name: 'pipeline' },
      });
      expect(created.statusCode).toBe(201);
      const key = created.json<CreatedKey>();

      const [delivery] = await deliveriesOf(f, everything.id, workspaceId, owner.token);
      expect(delivery).toMatchObject({ event_type: 'brand_key.created', status: 'pending' });
      expect(await deliveriesOf(f, keysOnly.id, workspaceId, owner.token)).toEqual([
        expect.objectContaining({ event_type: 'brand_key.created', event_id: delivery?.event_id }),
      ]);
      expect(await deliveriesOf(f, elsewhere.id, workspaceId, owner.token)).toEqual([]);
      expect(await deliveriesOf(f, paused.id, workspaceId, owner.token)).toEqual([]);
      const detail = (
        await webhooksApi(f, owner.token, workspaceId).delivery(everything.id, delivery?.id ?? '')
      ).json<DeliveryDetail>();
      const event = eventOfType(detail.payload, ['brand_key.created']);
      expect(event.workspace_id).toBe(workspaceId);
      expect(event.data.key.id).toBe(key.id);
      expect(detail.payload).not.toContain(key.key.slice(4));
    });

    it('queues nothing for a change refused with 412: the event goes out only with the change', async () => {
      const f = fixture();
      const everything = await newWebhook(f, { events: ['*'] });
      const draft = await newDraft(f);
      const before = await deliveriesOf(f, everything.id);
      const tables = await snapshotTables(f.database.config);

      const refused = await campaignsApi(f, f.owner.token).patch(draft.id, { subject: 'Stale' }, '"7"');

      expect(outcome(refused)).toBe('412 version_mismatch');
      expect(await deliveriesOf(f, everything.id)).toEqual(before);
      const after = await snapshotTables(f.database.config);
      expect(after.webhook_events).toEqual(tables.webhook_events);
      expect(after.deliveries).toEqual(tables.deliveries);

      // The same change, accepted, is announced once.
      f.clock.advance(1_000);
      const accepted = await campaignsApi(f, f.owner.token).patch(draft.id, { subject: 'Fresh' }, '"1"');
      expect(accepted.statusCode).toBe(200);
      const [latest] = await deliveriesOf(f, everything.id);
      expect(latest?.event_type).toBe('campaign.updated');
      expect(await deliveriesOf(f, everything.id)).toHaveLength(before.length + 1);
    });
  });
});
