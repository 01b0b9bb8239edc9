import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { EMAIL_EVENT_TYPES } from '../../src/contract/email.js';
import type { WebhookEventType } from '../../src/contract/webhooks.js';
import { systemClock } from '../../src/core/clock.js';
import { CAPTURED_DETAIL } from '../../src/delivery/email-channel.js';
import { type SmtpResult, SmtpSender } from '../../src/delivery/smtp-sender.js';
import { WebhookSender } from '../../src/delivery/webhook-sender.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { createLogger } from '../../src/logger.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import type { Deps } from '../../src/services/shared/deps.js';
import { type EmailBody, type EmailDraft, queueEmail } from '../../src/services/email/queue.js';
import { SecretBox } from '../../src/services/shared/secret-box.js';
import { createWebhook, sendWebhookTest } from '../../src/services/webhooks/webhooks.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { openStore } from '../../src/store/open-store.js';
import type { EmailMessageRecord, EmailMessageWithRecipients, Store } from '../../src/store/store.js';
import { startTestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import {
  EMAIL_MESSAGES_URL,
  emailKeyWithSender,
  FROM,
  message,
  suppress,
} from '#test/support/fixtures/email.js';
import { call } from '#test/support/http-fixture.js';
import { SmtpRelay } from '#test/support/smtp-server.js';
import { eventOfType, WebhookReceiver } from '#test/support/webhook-receiver.js';

/** A sender in a frozen process: its attempt never ends by itself, only when its worker stops. */
class FrozenSender extends SmtpSender {
  attempts = 0;

  constructor(url: string) {
    super(url, { maxConnections: 1 });
  }

  override send(
    _message: EmailMessageRecord,
    _body: EmailBody,
    _recipient: string,
    signal: AbortSignal,
  ): Promise<SmtpResult> {
    this.attempts++;
    return new Promise((resolve) => {
      signal.addEventListener('abort', () => {
        resolve({ status: 'deferred', response: 'aborted' });
      });
    });
  }
}

describeEachBackend('email delivery', (backend) => {
  let database: TestDatabase;
  let store: Store;
  /** Real time: the worker's leases and retries run on it. */
  let deps: Deps;
  let secrets: SecretBox;
  let relay: SmtpRelay;
  let workspaceId: string;
  let workers: DeliveryWorker[] = [];
  /** Every line the workers logged. */
  let logs: string[] = [];

  function startWorker(
    options: {
      smtp?: SmtpSender | undefined;
      retrySchedule?: number[];
      leaseMs?: number;
      concurrency?: number;
      deps?: Deps;
    } = {},
  ): DeliveryWorker {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(chunk.toString('utf8'));
        done();
      },
    });
    const worker = new DeliveryWorker({
      deps: options.deps ?? deps,
      secrets,
      sender: new WebhookSender({ allowPrivate: true }),
      smtp: 'smtp' in options ? options.smtp : relaySender(),
      logger: createLogger('info', sink),
      concurrency: options.concurrency ?? 4,
      retrySchedule: options.retrySchedule ?? [100, 200],
      leaseMs: options.leaseMs ?? 60_000,
      pollMs: 20,
      sweepMs: 3_600_000,
    });
    workers.push(worker);
    worker.start();
    return worker;
  }

  async function stopWorkers(graceMs = 1000): Promise<void> {
    await Promise.all(workers.map((worker) => worker.stop(graceMs)));
    workers = [];
  }

  function relaySender(url = relay.url): SmtpSender {
    return new SmtpSender(url, { maxConnections: 4, timeoutMs: 2_000 });
  }

  /** Queues a message from the workspace's sender to ada@example.com, with `draft` changed. */
  async function queue(draft: Partial<EmailDraft> = {}): Promise<string> {
    const { message } = await queueEmail(store, secrets, new Date().toISOString(), {
      workspaceId,
      source: 'api',
      from: FROM,
      to: ['ada@example.com'],
      subject: 'Your receipt',
      text: 'Thank you for your order.',
      ...draft,
    });
    return message.id;
  }

  async function stored(id: string, workspace: string | null = workspaceId) {
    const message = await store.email.get(workspace, id);
    if (!message) throw new Error(`no message ${id}`);
    return message;
  }

  /** The message once its status is `status`, with its recipients. */
  async function settledAs(
    id: string,
    status: string,
    workspace: string | null = workspaceId,
  ): Promise<EmailMessageWithRecipients> {
    await expect.poll(async () => (await stored(id, workspace)).status, { timeout: 10_000 }).toBe(status);
    return stored(id, workspace);
  }

  async function eventsOf(id: string) {
    return (await store.email.events(id)).map(({ type, recipient, detail }) => ({ type, recipient, detail }));
  }

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
    deps = { store, clock: systemClock };
    secrets = await SecretBox.load(store);
  });

  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  beforeEach(async () => {
    relay = await SmtpRelay.start();
    workspaceId = (await createWorkspace(deps, OPERATOR, { name: 'Mail' })).id;
  });

  afterEach(async () => {
    await stopWorkers();
    logs = [];
    await relay.close();
  });

  it('hands the relay one SMTP transaction per recipient, with the headers as stored and Bcc in none', async () => {
    startWorker();
    const id = await queue({
      to: ['ada@example.com', 'bob@example.com'],
      toHeader: ['Ada Lovelace <ada@example.com>', 'bob@example.com'],
      cc: ['cy@example.com'],
      bcc: ['dee@example.com'],
      replyTo: ['support@acme.example'],
      subject: 'Your receipt, #1024',
      html: '<p>Thank you for your order.</p>',
      text: 'Thank you for your order.',
      headers: { 'X-Order': '1024' },
    });
    const received = await relay.count(4);

    expect(received.map((mail) => mail.to).sort()).toEqual([
      ['ada@example.com'],
      ['bob@example.com'],
      ['cy@example.com'],
      ['dee@example.com'],
    ]);
    const messageIds = new Set<string | undefined>();
    for (const { from, raw, mail } of received) {
      expect(from).toBe('hello@acme.example');
      expect(mail.from?.text).toBe('"Acme Coffee" <hello@acme.example>');
      expect(mail.headers.get('to')).toMatchObject({
        value: [
          { name: 'Ada Lovelace', address: 'ada@example.com' },
          { name: '', address: 'bob@example.com' },
        ],
      });
      expect(mail.cc).toMatchObject({ value: [{ address: 'cy@example.com' }] });
      expect(mail.replyTo?.text).toBe('support@acme.example');
      expect(mail.subject).toBe('Your receipt, #1024');
      expect(mail.html).toBe('<p>Thank you for your order.</p>');
      expect(mail.text?.trim()).toBe('Thank you for your order.');
      expect(mail.headers.get('x-order')).toBe('1024');
      expect(mail.headers.get('x-brand-context-id')).toBe(id);
      // The blind copy's address is in no header of any copy, its own included.
      expect(mail.bcc).toBeUndefined();
      expect(raw).not.toContain('dee@example.com');
      messageIds.add(mail.messageId);
    }
    // One message: the same Message-ID in every copy.
    expect([...messageIds]).toEqual([`<${id}@acme.example>`]);

    const message = await settledAs(id, 'sent');
    expect(message.recipients.map((recipient) => recipient.status)).toEqual(['sent', 'sent', 'sent', 'sent']);
    const sent = (await eventsOf(id)).filter((event) => event.type === 'sent');
    expect(sent.map((event) => event.recipient).sort()).toEqual([
      'ada@example.com',
      'bob@example.com',
      'cy@example.com',
      'dee@example.com',
    ]);
    for (const event of sent) expect(event.detail).toMatch(/^250 /);
  });

  it('bounces a recipient the relay answers 550, suppresses the address, and sends nothing to it after', async () => {
    relay.rejects.add('gone@example.com');
    startWorker();
    const id = await queue({ to: ['ada@example.com', 'gone@example.com'] });

    const message = await settledAs(id, 'bounced');
    expect(message.recipients.map(({ email, status }) => ({ email, status }))).toEqual([
      { email: 'ada@example.com', status: 'sent' },
      { email: 'gone@example.com', status: 'bounced' },
    ]);
    const bounce = (await eventsOf(id)).find((event) => event.type === 'bounced');
    expect(bounce?.recipient).toBe('gone@example.com');
    expect(bounce?.detail).toMatch(/^550 .*No such user/);
    expect(await store.email.listSuppressions(workspaceId)).toEqual([
      expect.objectContaining({
        email: 'gone@example.com',
        reason: 'bounced',
        detail: bounce?.detail,
        messageId: id,
      }),
    ]);
    expect(relay.received.map((mail) => mail.to)).toEqual([['ada@example.com']]);

    const later = await queue({ to: ['gone@example.com', 'bob@example.com'] });
    await settledAs(later, 'suppressed');
    expect((await stored(later)).recipients.map(({ status }) => status)).toEqual(['suppressed', 'sent']);
    expect(relay.received.map((mail) => mail.to)).toEqual([['ada@example.com'], ['bob@example.com']]);
  });

  it('settles as suppressed, unsent, a recipient whose address bounced after the message was queued', async () => {
    const id = await queue({ to: ['late@example.com'] });
    await suppress(deps, workspaceId, 'late@example.com');
    startWorker();

    await settledAs(id, 'suppressed');
    expect((await eventsOf(id)).at(-1)).toEqual({
      type: 'suppressed',
      recipient: 'late@example.com',
      detail: 'not sent: the address bounced before',
    });
    expect(relay.received).toEqual([]);
  });

  it('keeps account email off the suppression list: sent to an address that bounced, suppressing nothing', async () => {
    const account = (to: string) => queue({ source: 'account', to: [to], subject: 'Join Mail' });
    await suppress(deps, workspaceId, 'late@example.com');
    const invite = await account('late@example.com');
    const queuedThenSuppressed = await account('ada@example.com');
    await suppress(deps, workspaceId, 'ada@example.com');
    relay.rejects.add('gone@example.com');
    const bounced = await account('gone@example.com');
    startWorker();

    await settledAs(invite, 'sent');
    await settledAs(queuedThenSuppressed, 'sent');
    await settledAs(bounced, 'bounced');
    expect((await store.email.listSuppressions(workspaceId)).map(({ email }) => email).sort()).toEqual([
      'ada@example.com',
      'late@example.com',
    ]);
  });

  it('defers a recipient the relay answers 451, and sends it on the retry', async () => {
    relay.defersOnce.add('ada@example.com');
    startWorker();
    const id = await queue();

    const message = await settledAs(id, 'sent');
    expect(message.recipients[0]).toMatchObject({ status: 'sent', attempts: 2 });
    const events = await eventsOf(id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'deferred', 'sent']);
    expect(events[1]?.detail).toMatch(/^451 /);
    expect(relay.received).toHaveLength(1);
  });

  it('defers while the relay is down, and sends once it is back on its port', async () => {
    await relay.close();
    startWorker({ retrySchedule: [300, 300, 300] });
    const id = await queue();

    await expect
      .poll(async () => (await stored(id)).recipients[0]?.lastResponse, { timeout: 10_000 })
      .toMatch(/^not sent: no connection to the relay \(ECONNREFUSED\)$/);
    expect((await stored(id)).status).toBe('deferred');
    await relay.listen();

    await settledAs(id, 'sent');
    expect(relay.received).toHaveLength(1);
    expect((await eventsOf(id)).map((event) => event.type)).toContain('deferred');
  });

  it('fails a recipient still deferred when the retries run out', async () => {
    await relay.close();
    startWorker({ retrySchedule: [50, 50] });
    const id = await queue();

    const message = await settledAs(id, 'failed');
    expect(message.recipients[0]).toMatchObject({ status: 'failed', attempts: 3, nextAttemptAt: null });
    const events = await eventsOf(id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'deferred', 'deferred', 'failed']);
    expect(events.at(-1)?.detail).toMatch(/no connection to the relay/);
    // Not the address's fault: it is not suppressed.
    expect(await store.email.listSuppressions(workspaceId)).toEqual([]);
  });

  it('gives a copy deferred past the end of a shorter schedule, after a restart, the attempt it was due', async () => {
    await relay.close();
    startWorker({ retrySchedule: [50, 50, 500] });
    const id = await queue();
    await expect.poll(async () => (await stored(id)).recipients[0]?.attempts, { timeout: 10_000 }).toBe(3);
    await stopWorkers();
    await relay.listen();

    startWorker({ retrySchedule: [50] });
    const message = await settledAs(id, 'sent');
    expect(message.recipients[0]).toMatchObject({ status: 'sent', attempts: 4 });
  });

  it('warns of a relay it cannot reach once a minute for each outcome, with the recipient masked', async () => {
    await relay.close();
    startWorker({ retrySchedule: [50, 50] });
    const ids = [await queue(), await queue({ to: ['bob@example.com'] })];
    await Promise.all(ids.map((id) => settledAs(id, 'failed')));

    const warnings = logs
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.level === 40);
    expect(warnings.map((warning) => warning.status)).toEqual(['deferred', 'failed']);
    for (const warning of warnings) {
      expect(ids).toContain(warning.message_id);
      expect(warning.to).toMatch(/^[ab]\*\*\*@example\.com$/);
      expect(warning.response).toMatch(/^not sent: no connection to the relay/);
    }
    expect(logs.join('\n')).not.toMatch(/(ada|bob)@example\.com/);
  });

  it('publishes email.* events to subscribed endpoints, once per status a recipient reaches', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const webhookDeps = { ...deps, secrets, webhookSettings: { allowPrivate: true } };
      const events: WebhookEventType[] = ['email.sent', 'email.deferred', 'email.bounced', 'email.failed'];
      await createWebhook(webhookDeps, OPERATOR, workspaceId, { url: receiver.url, events });
      relay.defersOnce.add('ada@example.com');
      relay.rejects.add('gone@example.com');
      startWorker();
      const id = await queue({ to: ['ada@example.com', 'gone@example.com'], tags: { order: '1024' } });

      await settledAs(id, 'bounced');
      const arrivals = await receiver.count(3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.arrivals).toHaveLength(3);
      const answers = { 'email.deferred': /^451 /, 'email.sent': /^250 /, 'email.bounced': /^550 / };
      const published = arrivals.map((arrival) => eventOfType(arrival.body, EMAIL_EVENT_TYPES));
      expect(published.map((event) => `${event.type} ${event.data.recipient}`).sort()).toEqual([
        'email.bounced gone@example.com',
        'email.deferred ada@example.com',
        'email.sent ada@example.com',
      ]);
      for (const { type, workspace_id, data } of published) {
        expect(workspace_id).toBe(workspaceId);
        expect(data).toMatchObject({
          message_id: id,
          status: type.slice('email.'.length),
          tags: { order: '1024' },
        });
        expect(data.detail).toMatch(answers[type as keyof typeof answers]);
      }
    } finally {
      await receiver.close();
    }
  });

  it('publishes email.failed, email.suppressed and email.captured as the recipients reach them', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const webhookDeps = { ...deps, secrets, webhookSettings: { allowPrivate: true } };
      await createWebhook(webhookDeps, OPERATOR, workspaceId, { url: receiver.url, events: ['*'] });
      await relay.close();
      startWorker({ retrySchedule: [] });
      const failed = await queue({ to: ['ada@example.com'] });
      await settledAs(failed, 'failed');
      await stopWorkers();

      const suppressed = await queue({ to: ['late@example.com'] });
      await suppress(deps, workspaceId, 'late@example.com');
      const captured = await queue({ to: ['bob@example.com'] });
      startWorker({ smtp: undefined });
      await settledAs(suppressed, 'suppressed');
      await settledAs(captured, 'captured');

      const arrivals = await receiver.count(3);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(receiver.arrivals).toHaveLength(3);
      const published = arrivals
        .map((arrival) => eventOfType(arrival.body, EMAIL_EVENT_TYPES).data)
        .map(({ message_id, recipient, status, detail }) => ({ message_id, recipient, status, detail }));
      expect(published).toEqual(
        expect.arrayContaining([
          {
            message_id: failed,
            recipient: 'ada@example.com',
            status: 'failed',
            detail: 'not sent: no connection to the relay (ECONNREFUSED)',
          },
          {
            message_id: suppressed,
            recipient: 'late@example.com',
            status: 'suppressed',
            detail: 'not sent: the address bounced before',
          },
          { message_id: captured, recipient: 'bob@example.com', status: 'captured', detail: CAPTURED_DETAIL },
        ]) as unknown,
      );
    } finally {
      await receiver.close();
    }
  });

  it('captures every recipient when there is no SMTP_URL, and logs account email without its body', async () => {
    startWorker({ smtp: undefined });
    const transactional = await queue({ to: ['ada@example.com'], cc: ['bob@example.com'] });
    const { message: reset } = await queueEmail(store, secrets, new Date().toISOString(), {
      workspaceId: null,
      source: 'account',
      from: 'Brand Context <no-reply@brand-context.localhost>',
      to: ['cy@example.com'],
      subject: 'Reset your password',
      text: 'Reset it here: https://brand.test/reset-password?token=rst_OneTimeSecret',
    });

    const captured = await settledAs(transactional, 'captured');
    expect(captured.recipients.map((recipient) => recipient.status)).toEqual(['captured', 'captured']);
    await settledAs(reset.id, 'captured', null);
    expect((await eventsOf(reset.id)).at(-1)).toEqual({
      type: 'captured',
      recipient: 'cy@example.com',
      detail: CAPTURED_DETAIL,
    });
    expect(relay.received).toEqual([]);

    const lines = logs.filter((line) => line.includes('captured an email'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] ?? '{}')).toMatchObject({
      level: 30,
      message_id: reset.id,
      subject: 'Reset your password',
      to: 'c***@example.com',
      read_with: 'npx brand-context mailbox',
    });
    const all = logs.join('\n');
    expect(all).not.toContain('OneTimeSecret');
    expect(all).not.toContain('cy@example.com');
  });

  it('defers, without suppressing the address or showing the password, when the relay refuses the credentials', async () => {
    await relay.close();
    relay = await SmtpRelay.start({ user: 'relay', pass: 'relay-password-123' });
    startWorker({ smtp: relaySender(relay.url) });
    const accepted = await queue();
    await settledAs(accepted, 'sent');
    expect(relay.received).toHaveLength(1);
    await stopWorkers();

    startWorker({
      smtp: relaySender(relay.url.replace('relay-password-123', 'wrong-password-456')),
      retrySchedule: [50],
    });
    const refused = await queue({ to: ['bob@example.com'] });
    await settledAs(refused, 'failed');
    const details = (await eventsOf(refused)).map((event) => event.detail ?? '');
    expect(details.slice(1)).toEqual([expect.stringMatching(/^535 /), expect.stringMatching(/^535 /)]);
    expect(await store.email.listSuppressions(workspaceId)).toEqual([]);
    expect([...details, ...logs].join('\n')).not.toMatch(/wrong-password-456|relay-password-123/);
  });

  it('does not lose a message whose worker hangs mid-send: once its lease runs out another sends it', async () => {
    // One slot: the hung worker cannot claim the recipient again itself. Its attempt outlives its lease,
    // as in a process that froze: a live one ends its attempt before its lease does (see below).
    const frozen = new FrozenSender(relay.url);
    startWorker({ leaseMs: 300, concurrency: 1, smtp: frozen });
    const id = await queue();
    await expect.poll(() => frozen.attempts).toBe(1);

    startWorker();
    await settledAs(id, 'sent');
    expect(relay.received).toHaveLength(1);
    // The hung attempt is released when its worker stops, and records nothing.
    await stopWorkers(0);
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['queued', 'sent']);
    expect((await stored(id)).recipients[0]).toMatchObject({ status: 'sent', attempts: 1 });
  });

  it('waits for the answer to the data longer than for the others: a relay that takes 3 s to answer (past the 2 s timeout) gets one copy, sent in one attempt', async () => {
    relay.answerDelays.push(3_000);
    startWorker();
    const id = await queue();

    const message = await settledAs(id, 'sent');
    expect(relay.received).toHaveLength(1);
    expect(message.recipients[0]).toMatchObject({ status: 'sent', attempts: 1 });
    expect((await eventsOf(id)).map((event) => event.type)).toEqual(['queued', 'sent']);
  });

  it('gives up on an answer that has not come when the lease is nearly over, and sends the copy again with the same Message-ID, so the receiver can drop the duplicate', async () => {
    relay.answerDelays.push(Number.POSITIVE_INFINITY);
    // The attempt ends a quarter of the lease before it (at most 5 s before).
    startWorker({ leaseMs: 2_000 });
    const id = await queue();

    const message = await settledAs(id, 'sent');
    const [first, second, ...more] = relay.received;
    expect(more).toEqual([]);
    expect(first?.mail.messageId).toBe(`<${id}@acme.example>`);
    expect(second?.mail.messageId).toBe(first?.mail.messageId);
    expect(second?.mail.headers.get('x-brand-context-id')).toBe(id);
    expect(message.recipients[0]).toMatchObject({ status: 'sent', attempts: 2 });
    const events = await eventsOf(id);
    expect(events.map((event) => event.type)).toEqual(['queued', 'deferred', 'sent']);
    expect(events[1]?.detail).toMatch(
      /^not sent: the relay did not answer within 1\.\d s \(the attempt's lease was running out\)$/,
    );
  });

  it('lets a relay that never answers the data hold no slot: a webhook delivery goes out meanwhile', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const webhookDeps = { ...deps, secrets, webhookSettings: { allowPrivate: true } };
      const webhook = await createWebhook(webhookDeps, OPERATOR, workspaceId, {
        url: receiver.url,
        events: ['email.sent'],
      });
      relay.answerDelays.push(...Array<number>(4).fill(Number.POSITIVE_INFINITY));
      startWorker({ concurrency: 2 });
      for (let i = 0; i < 4; i++) await queue({ to: [`reader${String(i)}@example.com`] });
      await relay.until(() => relay.received.length >= 2);

      await sendWebhookTest(webhookDeps, OPERATOR, workspaceId, webhook.id);
      await receiver.count(1, 5_000);
    } finally {
      await stopWorkers(0);
      await receiver.close();
    }
  });

  it('sends one message for the same Idempotency-Key sent twice at once over HTTP', async () => {
    const testApp = await startTestApp(database);
    try {
      const { key } = await emailKeyWithSender(testApp, workspaceId);
      // The app's own (manual) clock: the message is due by it.
      startWorker({ deps: testApp.deps });
      const send = () =>
        call(testApp, key, 'POST', EMAIL_MESSAGES_URL, {
          body: message(),
          headers: { 'idempotency-key': 'order-1024' },
        });
      const responses = await Promise.all([send(), send()]);

      expect(responses.map((response) => response.statusCode)).toEqual([202, 202]);
      const ids = new Set(responses.map((response) => response.json<{ id: string }>().id));
      expect(ids.size).toBe(1);
      const [id = ''] = ids;
      await settledAs(id, 'sent');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(relay.received).toHaveLength(1);
      expect(relay.received[0]?.mail.headers.get('x-brand-context-id')).toBe(id);
    } finally {
      await stopWorkers();
      await testApp.close();
    }
  });
});
