import type { Page } from 'playwright-core';
import { afterEach, beforeAll, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { SmtpSender } from '../../src/delivery/smtp-sender.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { WebhookSender } from '../../src/delivery/webhook-sender.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { addMember } from '../../src/services/accounts/members.js';
import type { CreatedKey } from '../../src/contract/keys.js';
import {
  type BrowserFixture,
  cellOf,
  describeInBrowser,
  eventually,
  expectLoadMoreAndFilter,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  navigate,
  rowOf,
  screenshot,
  useBrowserFixture,
} from './browser-harness.js';
import { emailKeyWithSender } from '#test/support/fixtures/email.js';
import { SmtpRelay } from '#test/support/smtp-server.js';
import { WebhookReceiver } from '#test/support/webhook-receiver.js';

const SENDER = 'orders@acme-coffee.example';

/**
 * The delivery worker `serve` runs, sending through `relay` (SMTP_URL), or without one: then every message
 * is captured, and nothing leaves.
 */
function startWorker(f: BrowserFixture, relay?: SmtpRelay): DeliveryWorker {
  const { store, app } = f.testApp;
  const worker = new DeliveryWorker({
    deps: { store, clock: systemClock },
    secrets: app.services.accountMail.secrets,
    sender: new WebhookSender({ allowPrivate: true }),
    smtp: relay && new SmtpSender(relay.url, { maxConnections: 2 }),
    logger: app.log,
    concurrency: 2,
    retrySchedule: [200],
    leaseMs: 60_000,
    pollMs: 50,
  });
  worker.start();
  return worker;
}

/** POST /email/v1/messages as an integrator sends it, with Node's fetch. */
async function send(f: BrowserFixture, key: CreatedKey, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${f.baseUrl}/email/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: `Acme Coffee <${SENDER}>`, text: 'Thank you for your order.', ...body }),
  });
  const answer = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(answer)).toBe(202);
  return answer.id;
}

/** What the test reads of the mailbox frame's window (page.evaluate runs there, typed without the DOM). */
interface FrameWindow {
  getComputedStyle(element: unknown): { color: string; fontWeight: string };
}

async function cellText(page: Page, table: string, rowText: string, column: string): Promise<string> {
  const cell = await cellOf(page.getByRole('table', { name: table, exact: true }), rowText, column);
  return (await cell.innerText()).trim();
}

describeInBrowser('Email in the console (Settings → Email)', () => {
  const fixture = useBrowserFixture();
  const cleanups: (() => Promise<void>)[] = [];
  let key: CreatedKey;

  beforeAll(async () => {
    key = await emailKeyWithSender(fixture().testApp, fixture().workspaceId, SENDER);
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('shows the operator’s keys read-only, the allowed senders, and a request ready to send with a key', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Email');

    const keys = page.getByRole('table', { name: 'Transactional email keys', exact: true });
    await rowOf(keys, 'transactional').waitFor();
    expect(await cellText(page, 'Transactional email keys', 'transactional', 'Expires')).toBe('Never');
    expect(await cellText(page, 'Transactional email keys', 'transactional', 'Key')).toBe(
      `${key.prefix}…${key.key.slice(-4)}`,
    );
    expect(await keys.getByRole('button').count(), 'no Revoke: the operator manages these keys').toBe(0);
    await page.getByText('Keys are issued by the operator of this service: ask them for one.').waitFor();
    const cli = page.getByRole('region', { name: 'Create a transactional email key', exact: true });
    expect(await cli.innerText()).toBe(
      `npx brand-context email-keys create --workspace ${f.workspaceId} --name <name>`,
    );
    const request = await page
      .getByRole('region', { name: 'Send a message with curl', exact: true })
      .innerText();
    expect(request).toContain(`${f.baseUrl}/email/v1/messages`);
    expect(request).toContain(`"from":"${SENDER}"`);

    expect(await cellText(page, 'Allowed senders', SENDER, 'Kind')).toBe('This address');
    // Nothing was captured in this workspace yet: no mailbox.
    await page.getByRole('table', { name: 'Messages', exact: true }).getByText('No messages yet.').waitFor();
    expect(await page.getByRole('heading', { name: 'Development mailbox' }).count()).toBe(0);
    await expectNoSeriousAxeViolations(page, 'Email');
    await screenshot(page, 'email-overview');
    expect(await page.content(), 'the key itself is nowhere on the page').not.toContain(key.key);
    await expectNoPageProblems(session, 'Email');
  });

  it('filters the message log by status and pages through it with Load more', async () => {
    const f = fixture();
    // No worker runs in this test: the messages stay queued. A second apart, ending now: the next tests'
    // messages are newer, first in the log.
    f.syncClock(-22_000);
    for (let sent = 0; sent < 22; sent++) {
      await send(f, key, { to: 'ada@example.com', subject: `Receipt ${String(sent)}` });
      f.testApp.clock.advance(1000);
    }
    const session = await f.open(f.admin);
    const { page } = session;
    await navigate(page, 'Email');
    const messages = page.getByRole('table', { name: 'Messages', exact: true });
    // A header row and the first page, newest first.
    await eventually(() => messages.getByRole('row').count(), 21);
    expect(await messages.getByRole('row').nth(1).getByRole('rowheader').innerText()).toBe(
      `Receipt 21\nFrom Acme Coffee <${SENDER}>`,
    );
    expect(await cellText(page, 'Messages', 'Receipt 21', 'Recipients')).toBe('ada@example.com\nQueued');
    await expectLoadMoreAndFilter(page, messages, 22, {
      none: 'sent',
      emptyText: 'No sent messages.',
      all: 'queued',
    });
    await expectNoPageProblems(session, 'Email (message log)');
  });

  it('follows a message until it is captured, shows its history, and reads it in the development mailbox', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Email');
    const subject = 'Your order 1042';
    // A server elsewhere that records every request: the message's tracking pixel points there.
    const remote = await WebhookReceiver.start();
    cleanups.push(() => remote.close());
    await send(f, key, {
      to: ['Ada Lovelace <ada@example.com>'],
      cc: 'bob@example.com',
      subject,
      html: [
        '<style>.total { font-weight: 700 }</style>',
        '<p class="total" style="color: #6b4f3a">Thank you for your order.</p>',
        `<img src="${remote.url}/open.gif" alt="" width="1" height="1">`,
        '<script>document.body.dataset.ran = "yes"</script>',
      ].join(''),
      headers: { 'X-Order': '1042' },
      tags: { order: '1042' },
    });
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const messages = page.getByRole('table', { name: 'Messages', exact: true });
    await rowOf(messages, subject).waitFor();
    expect(await cellText(page, 'Messages', subject, 'Tags')).toBe('order: 1042');

    // The log follows the message on its own until every copy is settled; the mailbox appears with it.
    const worker = startWorker(f);
    cleanups.push(() => worker.stop(1000));
    await eventually(
      () => cellText(page, 'Messages', subject, 'Recipients'),
      'ada@example.com\nCaptured\nbob@example.com\nCaptured',
    );
    await page.getByRole('heading', { level: 2, name: 'Development mailbox', exact: true }).waitFor();
    await page.getByText('SMTP_URL is not set: email stays on this machine.').waitFor();

    await messages.getByRole('button', { name: `Details ${subject}`, exact: true }).click();
    const details = page.getByRole('dialog', { name: subject, exact: true });
    const history = details.getByRole('table', { name: 'History', exact: true });
    await rowOf(history, 'bob@example.com').waitFor();
    expect(
      await (
        await cellOf(
          details.getByRole('table', { name: 'Recipients', exact: true }),
          'bob@example.com',
          'Field',
        )
      ).innerText(),
    ).toBe('cc');
    expect((await (await cellOf(history, 'ada@example.com', 'Detail')).innerText()).trim()).toBe(
      'SMTP_URL is not set: kept in the mailbox',
    );
    await expectNoSeriousAxeViolations(page, 'a message’s details');
    await screenshot(page, 'email-message');
    await details.getByRole('button', { name: 'Close', exact: true }).click();
    await details.waitFor({ state: 'hidden' });

    const mailbox = page.getByRole('table', { name: 'Captured messages', exact: true });
    await mailbox.getByRole('button', { name: `Open ${subject}`, exact: true }).click();
    const opened = page.getByRole('dialog', { name: subject, exact: true });
    const text = opened.getByRole('region', { name: 'Text body', exact: true });
    expect(await text.innerText()).toBe('Thank you for your order.');
    const headers = await opened.locator('.mail-headers').innerText();
    for (const line of [
      'From\nAcme Coffee <orders@acme-coffee.example>',
      'To\nAda Lovelace <ada@example.com>',
      'Cc\nbob@example.com',
      `Subject\n${subject}`,
      'X-Order\n1042',
    ])
      expect(headers).toContain(line);
    const frame = opened.locator('iframe[title="HTML body"]');
    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
    expect(await frame.getAttribute('src')).toMatch(/\/email-messages\/em_\w+\/content\.html$/);
    const body = page.frameLocator('iframe[title="HTML body"]').locator('body');
    const total = body.getByText('Thank you for your order.');
    await total.waitFor();
    // Styled as sent: its inline style attribute and its style element both apply.
    expect(
      await total.evaluate((element) => {
        const frameWindow = globalThis as unknown as FrameWindow;
        const style = frameWindow.getComputedStyle(element);
        return [style.color, style.fontWeight];
      }),
    ).toEqual(['rgb(107, 79, 58)', '700']);
    expect(await body.getAttribute('data-ran'), 'the message’s script did not run').toBeNull();
    await expectNoSeriousAxeViolations(page, 'a captured message');
    await screenshot(page, 'email-mailbox');
    expect(remote.arrivals, 'the remote image was not loaded').toEqual([]);
    // The frame's page has a policy of its own (…/content.html): no script, nothing from the network.
    // Chromium reports what it blocked there, which is the point. Nothing else may be reported: no inline
    // style was blocked, and the console's own page had nothing to refuse.
    const image = `${remote.url}/open.gif`;
    const blockedInFrame: Record<string, (problem: string) => boolean> = {
      script: (problem) =>
        problem.startsWith("console.error: Blocked script execution in '") &&
        problem.includes("/content.html' because the document's frame is sandboxed"),
      image: (problem) =>
        problem.startsWith(`console.error: Loading the image '${image}' violates`) &&
        problem.includes('"img-src data:"'),
      'image request': (problem) => problem === `request failed: GET ${image}: csp`,
    };
    const { found } = session.problems;
    for (const [what, matches] of Object.entries(blockedInFrame))
      expect(found.some(matches), what).toBe(true);
    const expected = Object.values(blockedInFrame);
    found.splice(
      0,
      found.length,
      ...found.filter((problem) => !expected.some((matches) => matches(problem))),
    );
    await expectNoPageProblems(session, 'Email (mailbox)');
  });

  it('follows an open message’s details until it settles', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Email');
    const subject = 'Your order 1043';
    await send(f, key, { to: ['grace@example.com'], subject });
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    const messages = page.getByRole('table', { name: 'Messages', exact: true });
    await messages.getByRole('button', { name: `Details ${subject}`, exact: true }).click();
    const details = page.getByRole('dialog', { name: subject, exact: true });
    const history = details.getByRole('table', { name: 'History', exact: true });
    await rowOf(history, 'Every recipient').waitFor();

    // Sent once the dialog is open: the dialog loads the message again until every copy is settled.
    const worker = startWorker(f);
    cleanups.push(() => worker.stop(1000));
    await rowOf(history, 'grace@example.com').waitFor();
    expect((await (await cellOf(history, 'grace@example.com', 'Status')).innerText()).trim()).toBe(
      'Captured',
    );
    await expectNoPageProblems(session, 'Email (a message followed in its dialog)');
  });

  it('opens a captured invite’s link in a new tab, from its HTML body and from its text', async () => {
    const f = fixture();
    const { testApp } = f;
    await addMember(testApp.deps, testApp.app.services.accountMail, OPERATOR, 'owner', f.workspaceId, {
      email: 'invitee@browser.example',
      role: 'member',
    });
    const worker = startWorker(f);
    cleanups.push(() => worker.stop(1000));
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Email');
    const subject = 'Join Acme Coffee on Brand Context';
    const mailbox = page.getByRole('table', { name: 'Captured messages', exact: true });
    await rowOf(mailbox, subject).waitFor();
    await expectNoSeriousAxeViolations(page, 'the development mailbox');
    await mailbox.getByRole('button', { name: `Open ${subject}`, exact: true }).click();
    const opened = page.getByRole('dialog', { name: subject, exact: true });

    const links = [
      page.frameLocator('iframe[title="HTML body"]').getByRole('link'),
      opened.getByRole('region', { name: 'Text body', exact: true }).getByRole('link'),
    ];
    // The text body's link readable on its dark block. (The HTML body is the sender's, shown as sent, in a
    // frame that runs no script: axe cannot run there.)
    for (const link of links) await link.waitFor();
    await expectNoSeriousAxeViolations(page, 'an invite in the development mailbox');
    for (const link of links) {
      const href = (await link.getAttribute('href')) ?? '';
      expect(new URL(href).pathname).toBe('/accept-invite');
      const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
      await tab.waitForURL(href);
      await expectHeading(tab, 'Accept your invite');
      await tab.close();
    }
    expect(await links[1]?.getAttribute('rel')).toBe('noopener noreferrer');
    await expectNoPageProblems(session, 'Email (an invite in the mailbox)');
  });

  it('follows a message through a relay that bounces one recipient: the relay’s answer, and the address suppressed', async () => {
    const f = fixture();
    const relay = await SmtpRelay.start();
    cleanups.push(() => relay.close());
    relay.rejects.add('nobody@example.com');
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Email');
    const subject = 'Your password was changed';
    // The worker runs before the message is sent: the log follows it from queued to settled by itself.
    const worker = startWorker(f, relay);
    cleanups.push(() => worker.stop(1000));
    await send(f, key, { to: ['ada@example.com', 'nobody@example.com'], subject });
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await eventually(
      () => cellText(page, 'Messages', subject, 'Recipients'),
      'ada@example.com\nSent\nnobody@example.com\nBounced',
    );
    // Messages earlier tests left queued went out too; this one reached the relay for ada alone.
    const delivered = relay.received.filter((received) => received.mail.subject === subject);
    expect(delivered.map((received) => received.to)).toEqual([['ada@example.com']]);

    // The bounce suppressed the address: the list shows it without a reload.
    await eventually(
      () => cellText(page, 'Suppressions', 'nobody@example.com', 'Detail'),
      '550 5.1.1 No such user',
    );
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption('bounced');
    const messages = page.getByRole('table', { name: 'Messages', exact: true });
    await eventually(() => messages.getByRole('row').count(), 2);
    await messages.getByRole('button', { name: `Details ${subject}`, exact: true }).click();
    const details = page.getByRole('dialog', { name: subject, exact: true });
    const history = details.getByRole('table', { name: 'History', exact: true });
    await rowOf(history, 'nobody@example.com').waitFor();
    expect((await (await cellOf(history, 'nobody@example.com', 'Detail')).innerText()).trim()).toBe(
      '550 5.1.1 No such user',
    );
    expect((await (await cellOf(history, 'ada@example.com', 'Detail')).innerText()).trim()).toMatch(/^250 /);
    await expectNoPageProblems(session, 'Email (a bounce)');
  });

  it('removes a suppressed address, after asking', async () => {
    const f = fixture();
    const { store } = f.testApp;
    const created = new Date(f.testApp.clock.now()).toISOString();
    await store.email.suppress({
      workspaceId: f.workspaceId,
      email: 'gone@example.com',
      reason: 'bounced',
      detail: '550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown',
      messageId: null,
      createdAt: created,
    });
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Email');
    const suppressions = page.getByRole('table', { name: 'Suppressions', exact: true });
    await rowOf(suppressions, 'gone@example.com').waitFor();
    expect(await cellText(page, 'Suppressions', 'gone@example.com', 'Reason')).toBe('Bounced');
    expect(await cellText(page, 'Suppressions', 'gone@example.com', 'Detail')).toContain('550 5.1.1');

    await suppressions.getByRole('button', { name: 'Remove gone@example.com', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Send to gone@example.com again?', exact: true });
    await confirm.getByRole('button', { name: 'Remove suppression', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'gone@example.com removed' }).waitFor();
    await rowOf(suppressions, 'gone@example.com').waitFor({ state: 'detached' });
    const left = await store.email.listSuppressions(f.workspaceId);
    expect(left.map((suppression) => suppression.email)).not.toContain('gone@example.com');
    await expectNoPageProblems(session, 'Email (suppressions)');
  });

  it('tells a member that only owners and admins see the workspace’s email, and asks the API nothing', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    const asked: string[] = [];
    page.on('request', (request) => {
      if (/\/email-/.test(request.url())) asked.push(request.url());
    });
    await navigate(page, 'Email');
    await page.getByText('Only owners and admins see this workspace’s email.', { exact: true }).waitFor();
    expect(await page.getByRole('table').count()).toBe(0);
    expect(asked).toEqual([]);
    await expectNoPageProblems(session, 'Email (member)');
  });
});
