import { describe, expect, it } from 'vitest';
import type { WebhookEvent } from '../../../contract/webhook-events.js';
import { OPERATOR } from '../../../services/audit/audit.js';
import { createWorkspace } from '../../../services/accounts/workspaces.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import {
  type EmailMessage,
  type EmailMessagePage,
  emailApi,
  emailKeys,
  emailKeyWithSender,
  message,
  messageLogApi,
  queueAccountEmail,
  type QueuedEmail,
  SENDER_DOMAIN,
  sendEmail,
  suppress,
} from '#test/support/fixtures/email.js';
import {
  type DeliveryDetail,
  deliveriesOf,
  newWebhook,
  webhooksApi,
} from '#test/support/fixtures/webhooks.js';
import { type Fixture, isoNow, useFixture } from '#test/support/http-fixture.js';
import { addUser, type TestUser } from '#test/support/users.js';
import { eventOf } from '#test/support/webhook-receiver.js';

/** A workspace of its own with a key and the fixture's sender domain, so its log holds one test's messages. */
async function ownWorkspace(f: Fixture): Promise<{ workspaceId: string; key: string; owner: TestUser }> {
  const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Mailing Co' });
  const { key } = await emailKeyWithSender(f, workspaceId);
  return { workspaceId, key, owner: await addUser(f, { workspaceId, role: 'owner' }) };
}

/** The message as GET /email/v1/messages/{id} answers it. */
async function read(f: Fixture, key: string, id: string): Promise<EmailMessage> {
  const response = await emailApi(f, key).get(id);
  expect(response.statusCode).toBe(200);
  return response.json<EmailMessage>();
}

async function listed(f: Fixture, key: string, query = ''): Promise<EmailMessagePage> {
  const response = await emailApi(f, key).list(query);
  expect(response.statusCode).toBe(200);
  return response.json<EmailMessagePage>();
}

describeEachBackend('Transactional email API: the happy paths', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  describe('sending', () => {
    it('queues a message with 202 and a Location that reads it back with its recipient, event and tags, never its body', async () => {
      const f = fixture();
      f.clock.advance(60_000);
      const response = await emailApi(f, f.emailKey).send(
        message({ tags: { order: 'A-1042' }, html: '<p>Thank you</p>' }),
      );

      expect(response.statusCode).toBe(202);
      const queued = response.json<QueuedEmail>();
      expect(queued).toEqual({ id: expect.stringMatching(/^em_/) as string, status: 'queued' });
      expect(response.headers.location).toBe(`/email/v1/messages/${queued.id}`);
      expect(response.headers['idempotent-replayed']).toBeUndefined();

      const readBack = await f.app.inject({
        method: 'GET',
        url: String(response.headers.location),
        headers: { authorization: `Bearer ${f.emailKey}` },
      });
      expect(readBack.statusCode).toBe(200);
      expect(readBack.json()).toEqual({
        id: queued.id,
        workspace_id: f.workspaceId,
        from: 'Acme Coffee <hello@acme.example>',
        subject: 'Your receipt',
        status: 'queued',
        recipients: [{ email: 'ada@example.com', field: 'to', status: 'queued' }],
        tags: { order: 'A-1042' },
        reply_to: [],
        headers: {},
        events: [{ type: 'queued', at: isoNow(f), recipient: null, detail: null }],
        created_at: isoNow(f),
        updated_at: isoNow(f),
      });
      expect(readBack.body).not.toContain('Thank you');
    });

    it('takes to as one address or a list, with cc, bcc, reply_to and X- headers', async () => {
      const f = fixture();
      const { id } = await sendEmail(
        f,
        f.emailKey,
        message({
          to: ['ada@example.com', 'Grace Hopper <grace@example.com>'],
          cc: 'alan@example.com',
          bcc: ['audit@example.com'],
          reply_to: 'Support <support@acme.example>',
          headers: { 'X-Order': 'A-1042', 'X-Campaign-Ref': 'autumn' },
        }),
      );
      const sent = await read(f, f.emailKey, id);
      expect(sent.recipients).toEqual([
        { email: 'ada@example.com', field: 'to', status: 'queued' },
        { email: 'grace@example.com', field: 'to', status: 'queued' },
        { email: 'alan@example.com', field: 'cc', status: 'queued' },
        { email: 'audit@example.com', field: 'bcc', status: 'queued' },
      ]);
      expect(sent.reply_to).toEqual(['Support <support@acme.example>']);
      expect(sent.headers).toEqual({ 'X-Order': 'A-1042', 'X-Campaign-Ref': 'autumn' });
    });

    it('takes an html body alone, a text body alone, or both, and seals what it is given', async () => {
      const f = fixture();
      for (const bodies of [{ html: '<p>Hi</p>' }, { text: 'Hi' }, { html: '<p>Hi</p>', text: 'Hi' }]) {
        const { text: _text, ...rest } = message();
        const { id } = await sendEmail(f, f.emailKey, { ...rest, ...bodies });
        const stored = await f.store.email.get(f.workspaceId, id);
        expect(stored?.body).toMatch(/^v1\./);
      }
    });

    it('sends each address once, in the first field naming it, whatever the case it was written in', async () => {
      const f = fixture();
      const { id } = await sendEmail(
        f,
        f.emailKey,
        message({
          to: ['ada@example.com', 'Ada <ADA@example.com>'],
          cc: ['ada@Example.com', 'alan@example.com'],
          bcc: ['alan@example.com', 'grace@example.com', 'Grace@example.com'],
        }),
      );
      expect((await read(f, f.emailKey, id)).recipients).toEqual([
        { email: 'ada@example.com', field: 'to', status: 'queued' },
        { email: 'alan@example.com', field: 'cc', status: 'queued' },
        { email: 'grace@example.com', field: 'bcc', status: 'queued' },
      ]);
    });

    it('keeps display names in the From, To, Cc and Reply-To headers it sends, and queues the bare lower-case addresses', async () => {
      const f = fixture();
      const { id } = await sendEmail(
        f,
        f.emailKey,
        message({
          from: '"Acme, Orders" <Orders@Acme.example>',
          to: ['Ada Lovelace <Ada@Example.com>', 'grace@example.com'],
          cc: '"Turing, Alan" <alan@example.com>',
          bcc: 'Hidden Auditor <audit@example.com>',
          reply_to: ['Support Desk <support@acme.example>'],
        }),
      );
      const stored = await f.store.email.get(f.workspaceId, id);
      expect(stored).toMatchObject({
        from: '"Acme, Orders" <orders@acme.example>',
        toHeader: ['Ada Lovelace <ada@example.com>', 'grace@example.com'],
        ccHeader: ['"Turing, Alan" <alan@example.com>'],
        replyTo: ['Support Desk <support@acme.example>'],
      });
      expect(stored?.recipients.map((recipient) => recipient.email)).toEqual([
        'ada@example.com',
        'grace@example.com',
        'alan@example.com',
        'audit@example.com',
      ]);
      // Bcc recipients appear in no header.
      expect(JSON.stringify([stored?.toHeader, stored?.ccHeader])).not.toContain('Auditor');
    });
  });

  describe('senders', () => {
    it('sends from any address of an allowed domain, and from an allowed address, in any case', async () => {
      const f = fixture();
      await f.store.email.addSender({
        workspaceId: f.workspaceId,
        sender: 'billing@payments.example',
        createdAt: isoNow(f),
      });
      for (const from of [
        `news@${SENDER_DOMAIN}`,
        `Shop <SHOP@${SENDER_DOMAIN.toUpperCase()}>`,
        'billing@payments.example',
        'Billing <Billing@Payments.Example>',
      ]) {
        const response = await emailApi(f, f.emailKey).send(message({ from }));
        expect(response.statusCode, from).toBe(202);
      }
    });
  });

  describe('suppressed addresses', () => {
    it('does not send to an address that bounced before: that recipient is suppressed, the others queued', async () => {
      const f = fixture();
      await suppress(f, f.workspaceId, 'bounced@example.com');
      const queued = await sendEmail(
        f,
        f.emailKey,
        message({ to: ['Bounced <Bounced@example.com>', 'ada@example.com'] }),
      );
      expect(queued.status).toBe('queued');
      const sent = await read(f, f.emailKey, queued.id);
      expect(sent.status).toBe('queued');
      expect(sent.recipients).toEqual([
        { email: 'bounced@example.com', field: 'to', status: 'suppressed' },
        { email: 'ada@example.com', field: 'to', status: 'queued' },
      ]);
      // Both at the same instant: the log's order between them is not defined.
      expect(sent.events).toHaveLength(2);
      expect(sent.events).toEqual(
        expect.arrayContaining([
          { type: 'queued', at: isoNow(f), recipient: null, detail: null },
          {
            type: 'suppressed',
            at: isoNow(f),
            recipient: 'bounced@example.com',
            detail: expect.stringContaining('bounced') as string,
          },
        ]),
      );
    });

    it('answers 202 suppressed when every recipient is suppressed, leaving nothing to send', async () => {
      const f = fixture();
      await suppress(f, f.workspaceId, 'gone@example.com');
      const queued = await sendEmail(f, f.emailKey, message({ to: 'gone@example.com' }));
      expect(queued.status).toBe('suppressed');
      const stored = await f.store.email.get(f.workspaceId, queued.id);
      expect(stored?.recipients.map((recipient) => [recipient.status, recipient.nextAttemptAt])).toEqual([
        ['suppressed', null],
      ]);
    });

    it('suppresses an address in its own workspace only', async () => {
      const f = fixture();
      await suppress(f, f.otherWorkspaceId, 'elsewhere@example.com');
      const queued = await sendEmail(f, f.emailKey, message({ to: 'elsewhere@example.com' }));
      expect(queued.status).toBe('queued');
    });
  });

  describe('webhook events', () => {
    it("publishes email.queued for each recipient and email.suppressed for a suppressed one to the workspace's endpoints", async () => {
      const f = fixture();
      const { workspaceId, key, owner } = await ownWorkspace(f);
      const webhook = await newWebhook(
        f,
        { events: ['email.queued', 'email.suppressed'] },
        owner.token,
        workspaceId,
      );
      await suppress(f, workspaceId, 'gone@example.com');
      const queued = await sendEmail(
        f,
        key,
        message({ to: ['ada@example.com', 'gone@example.com'], tags: { order: 'A-7' } }),
      );

      const deliveries = await deliveriesOf(f, webhook.id, workspaceId, owner.token);
      const events: WebhookEvent[] = [];
      for (const delivery of deliveries) {
        const detail = await webhooksApi(f, owner.token, workspaceId).delivery(webhook.id, delivery.id);
        events.push(eventOf(detail.json<DeliveryDetail>().payload));
      }
      events.sort((a, b) => a.type.localeCompare(b.type));
      expect(events.map((event) => [event.type, event.data])).toEqual([
        [
          'email.queued',
          {
            message_id: queued.id,
            recipient: 'ada@example.com',
            status: 'queued',
            detail: null,
            tags: { order: 'A-7' },
          },
        ],
        [
          'email.suppressed',
          {
            message_id: queued.id,
            recipient: 'gone@example.com',
            status: 'suppressed',
            detail: expect.stringContaining('bounced') as string,
            tags: { order: 'A-7' },
          },
        ],
      ]);
    });
  });

  describe('Idempotency-Key', () => {
    it('answers a repeat of the same request with the first answer and Idempotent-Replayed: true, and queues nothing more', async () => {
      const f = fixture();
      const { key } = await ownWorkspace(f);
      const headers = { 'idempotency-key': 'order-1042-receipt' };
      const first = await emailApi(f, key).send(message(), { headers });
      expect(first.statusCode).toBe(202);
      f.clock.advance(60_000);

      const repeat = await emailApi(f, key).send(message(), { headers });

      expect(repeat.statusCode).toBe(202);
      expect(repeat.json()).toEqual(first.json());
      expect(repeat.headers.location).toBe(first.headers.location);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect((await listed(f, key)).items).toHaveLength(1);
    });

    it('answers a repeat of a request whose every recipient was suppressed as it was first answered', async () => {
      const f = fixture();
      await suppress(f, f.workspaceId, 'gone-again@example.com');
      const headers = { 'idempotency-key': 'suppressed-once' };
      const body = message({ to: 'gone-again@example.com' });
      const first = await emailApi(f, f.emailKey).send(body, { headers });
      const repeat = await emailApi(f, f.emailKey).send(body, { headers });
      expect(first.json<QueuedEmail>().status).toBe('suppressed');
      expect(repeat.json()).toEqual(first.json());
    });

    it('takes the same message written differently (field order, one address or a list, the case of an address) as the same request', async () => {
      const f = fixture();
      const { key } = await ownWorkspace(f);
      const headers = { 'idempotency-key': 'welcome-ada' };
      const first = await emailApi(f, key).send(
        { from: `hello@${SENDER_DOMAIN}`, to: 'Ada@Example.com', subject: 'Welcome', text: 'Hi' },
        { headers },
      );
      const repeat = await emailApi(f, key).send(
        { text: 'Hi', subject: 'Welcome', to: ['ada@example.com'], from: `hello@${SENDER_DOMAIN}` },
        { headers },
      );
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(repeat.json()).toEqual(first.json());
      expect((await listed(f, key)).items).toHaveLength(1);
    });

    it('takes the same key as naming a new request once 24 hours have passed', async () => {
      const f = fixture();
      const { key } = await ownWorkspace(f);
      const headers = { 'idempotency-key': 'daily-digest' };
      const first = await emailApi(f, key).send(message(), { headers });
      f.clock.advance(DAY_MS - 1);
      const within = await emailApi(f, key).send(message(), { headers });
      expect(within.json()).toEqual(first.json());
      f.clock.advance(1);

      const after = await emailApi(f, key).send(message({ subject: 'Another digest' }), { headers });

      expect(after.statusCode).toBe(202);
      expect(after.headers['idempotent-replayed']).toBeUndefined();
      expect(after.json<QueuedEmail>().id).not.toBe(first.json<QueuedEmail>().id);
      expect((await listed(f, key)).items).toHaveLength(2);
      const again = await emailApi(f, key).send(message({ subject: 'Another digest' }), { headers });
      expect(again.json()).toEqual(after.json());
    });

    it('queues one message for concurrent requests with the same key, and answers each of them with it', async () => {
      const f = fixture();
      const { key } = await ownWorkspace(f);
      const headers = { 'idempotency-key': 'concurrent-1' };
      const responses = await Promise.all(
        Array.from({ length: 5 }, () => emailApi(f, key).send(message(), { headers })),
      );
      expect(responses.map((response) => response.statusCode)).toEqual(Array(5).fill(202));
      const ids = new Set(responses.map((response) => response.json<QueuedEmail>().id));
      expect(ids.size).toBe(1);
      expect(responses.filter((response) => response.headers['idempotent-replayed'] === 'true')).toHaveLength(
        4,
      );
      expect((await listed(f, key)).items.map((item) => item.id)).toEqual([...ids]);
    });

    it('keeps keys per workspace: the same key in another workspace names another request', async () => {
      const f = fixture();
      const headers = { 'idempotency-key': 'shared-name' };
      const mine = await emailApi(f, f.emailKey).send(message(), { headers });
      const theirs = await emailApi(f, f.otherEmailKey).send(message({ from: 'hello@other.example' }), {
        headers,
      });
      expect(theirs.statusCode).toBe(202);
      expect(theirs.headers['idempotent-replayed']).toBeUndefined();
      expect(theirs.json<QueuedEmail>().id).not.toBe(mine.json<QueuedEmail>().id);
    });
  });

  describe('the message log', () => {
    it('lists messages newest first, a page at a time with the cursor, and filters by status', async () => {
      const f = fixture();
      const { workspaceId, key } = await ownWorkspace(f);
      await suppress(f, workspaceId, 'gone@example.com');
      const sent: QueuedEmail[] = [];
      for (const to of ['a@example.com', 'gone@example.com', 'b@example.com', 'c@example.com']) {
        f.clock.advance(1000);
        sent.push(await sendEmail(f, key, message({ to, subject: `To ${to}` })));
      }
      const newestFirst = sent.map((one) => one.id).reverse();

      const first = await listed(f, key, '?limit=3');
      expect(first.items.map((item) => item.id)).toEqual(newestFirst.slice(0, 3));
      expect(first.items[0]).toEqual({
        id: newestFirst[0],
        workspace_id: workspaceId,
        from: 'Acme Coffee <hello@acme.example>',
        subject: 'To c@example.com',
        status: 'queued',
        recipients: [{ email: 'c@example.com', field: 'to', status: 'queued' }],
        tags: {},
        created_at: isoNow(f),
        updated_at: isoNow(f),
      });
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await listed(f, key, `?limit=3&cursor=${String(first.next_cursor)}`);
      expect(second).toEqual({ items: [expect.objectContaining({ id: newestFirst[3] })], next_cursor: null });

      const suppressed = await listed(f, key, '?status=suppressed');
      expect(suppressed.items.map((item) => item.id)).toEqual([sent[1]?.id]);
      expect((await listed(f, key, '?status=queued&limit=2')).items.map((item) => item.id)).toEqual([
        sent[3]?.id,
        sent[2]?.id,
      ]);
    });

    it('shows the key only what was sent through /email/v1: account email of the workspace is in the console log alone', async () => {
      const f = fixture();
      const { workspaceId, key, owner } = await ownWorkspace(f);
      const sent = await sendEmail(f, key);
      f.clock.advance(1000);
      const invite = await queueAccountEmail(f, workspaceId);

      expect((await listed(f, key)).items.map((item) => item.id)).toEqual([sent.id]);
      expect((await emailApi(f, key).get(invite)).statusCode).toBe(404);
      const log = await messageLogApi(f, owner.token, workspaceId).list();
      expect(log.json<EmailMessagePage>().items.map((item) => item.id)).toEqual([invite, sent.id]);
    });
  });
});
