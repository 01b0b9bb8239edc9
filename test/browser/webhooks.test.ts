import type { Page } from 'playwright-core';
import { Webhook as Verifier } from 'standardwebhooks';
import { afterEach, expect, it } from 'vitest';
import type { NewWebhook } from '../../src/contract/webhooks.js';
import { systemClock } from '../../src/core/clock.js';
import { DeliveryWorker } from '../../src/delivery/worker.js';
import { WebhookSender } from '../../src/delivery/webhook-sender.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import {
  type BrowserFixture,
  cellOf,
  describeInBrowser,
  eventually,
  expectHeading,
  expectLoadMoreAndFilter,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  isFocused,
  navigate,
  rowOf,
  useBrowserFixture,
  whereInWindow,
} from './browser-harness.js';
import { WebhookReceiver } from '#test/support/webhook-receiver.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  sendWebhookTest,
} from '../../src/services/webhooks/webhooks.js';

/** The delivery worker `serve` runs, on the suite's store, with the real clock so signatures carry real time. */
function startWorker(f: BrowserFixture): DeliveryWorker {
  const { store, app } = f.testApp;
  const worker = new DeliveryWorker({
    deps: { store, clock: systemClock },
    secrets: app.services.accountMail.secrets,
    sender: new WebhookSender({ allowPrivate: true }),
    logger: app.log,
    concurrency: 2,
    retrySchedule: [200],
    leaseMs: 60_000,
    pollMs: 50,
  });
  worker.start();
  return worker;
}

/** An endpoint made by the operator, for tests that start on its page. */
function addEndpoint(f: BrowserFixture, url: string, events: NewWebhook['events'] = ['*']) {
  return createWebhook(f.testApp.deps, OPERATOR, f.workspaceId, { url, events });
}

function endpointPage(f: BrowserFixture, webhookId: string): string {
  return `/w/${f.workspaceId}/settings/webhooks/${webhookId}`;
}

async function cellText(page: Page, rowText: string, column: string): Promise<string> {
  const table = page.getByRole('table', { name: 'Deliveries', exact: true });
  return (await (await cellOf(table, rowText, column)).innerText()).trim();
}

describeInBrowser('Webhooks in the console (Settings → Webhooks)', () => {
  const fixture = useBrowserFixture();
  const cleanups: (() => Promise<void>)[] = [];

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('adds an endpoint whose secret signs the test event it receives, rotates the secret, and retries a failed delivery', async () => {
    const f = fixture();
    const receiver = await WebhookReceiver.start();
    cleanups.push(() => receiver.close());
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Webhooks');

    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    const add = page.getByRole('dialog', { name: 'Add webhook endpoint', exact: true });
    await add.getByRole('textbox', { name: 'Endpoint URL', exact: true }).fill(receiver.url);
    await add.getByRole('textbox', { name: 'Description', exact: true }).fill('Order system');
    await add.getByRole('radio', { name: 'Selected events', exact: true }).check();
    await add
      .getByRole('group', { name: 'Brand', exact: true })
      .getByRole('checkbox', { name: 'brand.updated', exact: true })
      .check();
    await add.getByRole('checkbox', { name: 'member.added', exact: true }).check();
    await expectNoSeriousAxeViolations(page, 'Add webhook endpoint dialog');
    await add.getByRole('button', { name: 'Add endpoint', exact: true }).click();

    const shown = page.getByRole('dialog', { name: 'Your endpoint’s signing secret', exact: true });
    const secretBox = shown.getByRole('textbox', { name: 'Signing secret', exact: true });
    await secretBox.waitFor();
    const firstSecret = await secretBox.inputValue();
    expect(firstSecret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    await shown.getByRole('button', { name: 'Copy secret', exact: true }).waitFor();
    await shown.getByRole('button', { name: 'Done', exact: true }).click();
    await shown.waitFor({ state: 'hidden' });
    expect(await page.content(), 'the secret is not on the list page').not.toContain(firstSecret);

    const table = page.getByRole('table', { name: 'Webhook endpoints', exact: true });
    await rowOf(table, receiver.url).waitFor();
    expect((await (await cellOf(table, receiver.url, 'Events')).innerText()).trim()).toBe(
      'brand.updated, member.added',
    );
    expect((await (await cellOf(table, receiver.url, 'Status')).innerText()).trim()).toBe('Enabled');
    expect(await rowOf(table, receiver.url).innerText()).toContain('Order system');

    await table.getByRole('link', { name: receiver.url, exact: true }).click();
    await expectHeading(page, receiver.url);
    await page.getByText('Order system', { exact: true }).waitFor();

    // Revealed again, it is the secret shown at creation.
    await page.getByRole('button', { name: 'Reveal secret', exact: true }).click();
    const revealed = page.getByRole('textbox', { name: 'Signing secret', exact: true });
    await eventually(() => revealed.inputValue(), firstSecret);
    await page.getByRole('button', { name: 'Hide secret', exact: true }).click();
    await revealed.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Rotate secret', exact: true }).click();
    const rotate = page.getByRole('dialog', { name: 'Rotate the signing secret?', exact: true });
    expect(await rotate.innerText()).toContain('keeps signing beside it for 24 hours');
    await rotate.getByRole('button', { name: 'Rotate secret', exact: true }).click();
    await rotate.waitFor({ state: 'hidden' });
    await revealed.waitFor();
    const secret = await revealed.inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(firstSecret);
    await page.getByRole('status').filter({ hasText: 'the previous one keeps signing until' }).waitFor();
    await page.getByText('The previous secret also signs every delivery until').waitFor();

    // Disabled, it can send no test event; enabled again, it can.
    const badge = page.locator('.meta-row .badge');
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await eventually(() => badge.innerText(), 'Disabled');
    await page.getByText('Disabled: no events are sent to this endpoint').waitFor();
    const sendTest = page.getByRole('button', { name: 'Send test event', exact: true });
    expect(await sendTest.isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await eventually(() => badge.innerText(), 'Enabled');

    const worker = startWorker(f);
    cleanups.push(() => worker.stop(1000));
    await sendTest.click();
    const queued = page.getByRole('status').filter({ hasText: 'Test event queued: ' });
    await queued.waitFor();
    const eventId = /(evt_\w+)/.exec(await queued.innerText())?.[1] ?? '';
    expect(eventId).not.toBe('');

    // The log follows the delivery on its own until it is settled.
    const deliveries = page.getByRole('table', { name: 'Deliveries', exact: true });
    await rowOf(deliveries, eventId).waitFor();
    await eventually(() => cellText(page, eventId, 'Status'), 'Succeeded\n1 attempt');
    expect(await cellText(page, eventId, 'Response')).toMatch(/^200\s+\d+ ms$/);
    expect(await cellText(page, eventId, 'Event')).toContain('webhook.test');
    await expectNoSeriousAxeViolations(page, 'a webhook endpoint’s page');

    // What the receiver got verifies with the rotated secret, and with the old one during the overlap.
    expect(receiver.arrivals).toHaveLength(1);
    const [delivered] = receiver.arrivals;
    if (delivered === undefined) throw new Error('nothing received');
    expect(delivered.headers['webhook-id']).toBe(eventId);
    expect(new Verifier(secret).verify(delivered.body, delivered.headers)).toMatchObject({
      id: eventId,
      type: 'webhook.test',
      workspace_id: f.workspaceId,
    });
    expect(() => new Verifier(firstSecret).verify(delivered.body, delivered.headers)).not.toThrow();

    // The receiver fails now: Retry sends the same event once more, and the log shows the 500.
    receiver.status = 500;
    await deliveries.getByRole('button', { name: `Retry webhook.test ${eventId}`, exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Retrying webhook.test (${eventId})` })
      .waitFor();
    await eventually(() => cellText(page, eventId, 'Status'), 'Failed\n2 attempts');
    expect(await cellText(page, eventId, 'Response')).toMatch(/^500\s/);
    expect(await cellText(page, eventId, 'Error')).not.toBe('None');
    expect(receiver.arrivals.map((request) => request.headers['webhook-id'])).toEqual([eventId, eventId]);

    // The endpoint now says since when its deliveries fail.
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await page.locator('.meta-row').getByText('failing since').waitFor();
    await page.getByText('If they keep failing for 5 days, the endpoint is disabled.').waitFor();

    // One delivery's payload and attempts.
    await deliveries.getByRole('button', { name: `Details webhook.test ${eventId}`, exact: true }).click();
    const details = page.getByRole('dialog', { name: 'Delivery of webhook.test', exact: true });
    const attempts = details.getByRole('table', { name: 'Attempts', exact: true });
    await rowOf(attempts, '#2').waitFor();
    await expectNoSeriousAxeViolations(page, 'a delivery’s details');
    expect((await (await cellOf(attempts, '#1', 'Response')).innerText()).trim()).toBe('200');
    expect((await (await cellOf(attempts, '#2', 'Response')).innerText()).trim()).toBe('500');
    const payload = await details.getByRole('region', { name: 'Payload', exact: true }).innerText();
    expect(JSON.parse(payload)).toEqual(JSON.parse(delivered.body));
    await details.getByRole('button', { name: 'Close', exact: true }).click();
    await details.waitFor({ state: 'hidden' });

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete this endpoint?', exact: true });
    await confirm.getByRole('button', { name: 'Delete endpoint', exact: true }).click();
    await expectHeading(page, 'Webhooks');
    await page.getByRole('table', { name: 'Webhook endpoints', exact: true }).waitFor();
    expect(await rowOf(page.getByRole('table', { name: 'Webhook endpoints' }), receiver.url).count()).toBe(0);
    expect(await listWebhooks(f.testApp.deps, f.workspaceId)).toEqual([]);
    await expectNoPageProblems(session, 'Webhooks');
  });

  it('shows the service’s reasons beside the fields it refuses', async () => {
    const f = fixture();
    const session = await f.open(f.admin);
    const { page } = session;
    await navigate(page, 'Webhooks');
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    const add = page.getByRole('dialog', { name: 'Add webhook endpoint', exact: true });
    const url = add.getByRole('textbox', { name: 'Endpoint URL', exact: true });
    await url.fill('ftp://files.example.com/hooks');
    await add.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    await add.getByRole('alert').waitFor();
    await eventually(() => url.getAttribute('aria-invalid'), 'true');
    // The alert says what is wrong; the field says it again beside itself.
    await add.getByText('must start with https:// or http://', { exact: true }).waitFor();

    expect(await listWebhooks(f.testApp.deps, f.workspaceId)).toEqual([]);
    await expectNoPageProblems(session, 'Webhooks (refused fields)');
  });

  it('asks for at least one event when "Selected events" has none ticked, before sending anything', async () => {
    const f = fixture();
    const session = await f.open(f.admin);
    const { page } = session;
    await navigate(page, 'Webhooks');
    const sent: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET' && request.url().includes('/webhooks')) sent.push(request.url());
    });
    await page.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    const add = page.getByRole('dialog', { name: 'Add webhook endpoint', exact: true });
    await add
      .getByRole('textbox', { name: 'Endpoint URL', exact: true })
      .fill('https://hooks.example.com/brand-context');
    await add.getByRole('radio', { name: 'Selected events', exact: true }).check();
    await add.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    const events = add.getByRole('group', { name: 'Events', exact: true });
    const message = events.getByText('Choose at least one event, or All events.', { exact: true });
    await message.waitFor();
    // Where the person is: beside the first event to tick, which has the focus, on a phone too.
    expect(await isFocused(events.getByRole('checkbox').first())).toBe(true);
    await page.setViewportSize({ width: 390, height: 844 });
    await message.scrollIntoViewIfNeeded();
    expect(await whereInWindow(page, events.getByRole('checkbox').first())).toBe('in view');
    // Said beside the events, which name it, and nowhere in the service's own words.
    expect(await events.getAttribute('aria-describedby')).not.toBeNull();
    expect(await add.getByText('must name at least one event type', { exact: false }).count()).toBe(0);
    expect(sent, 'nothing was sent').toEqual([]);

    // Ticking one takes the message away and the endpoint is added.
    await add.getByRole('checkbox', { name: 'member.added', exact: true }).check();
    await events.getByText('Choose at least one event, or All events.', { exact: true }).waitFor({
      state: 'detached',
    });
    await add.getByRole('button', { name: 'Add endpoint', exact: true }).click();
    await page.getByRole('dialog', { name: 'Your endpoint’s signing secret', exact: true }).waitFor();
    const made = await listWebhooks(f.testApp.deps, f.workspaceId);
    expect(made.map((webhook) => webhook.events)).toEqual([['member.added']]);
    for (const webhook of made) await deleteWebhook(f.testApp.deps, OPERATOR, f.workspaceId, webhook.id);
    await expectNoPageProblems(session, 'Webhooks (no event chosen)');
  });

  it('changes an endpoint’s URL and events with Edit', async () => {
    const f = fixture();
    const webhook = await addEndpoint(f, 'https://hooks.example.com/old');
    cleanups.push(() => deleteWebhook(f.testApp.deps, OPERATOR, f.workspaceId, webhook.id));
    const session = await f.open(f.owner);
    const { page } = session;
    await page.goto(endpointPage(f, webhook.id));
    await expectHeading(page, 'https://hooks.example.com/old');
    await page.getByText('All events, including ones added later.').waitFor();

    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const edit = page.getByRole('dialog', { name: 'Edit webhook endpoint', exact: true });
    await edit
      .getByRole('textbox', { name: 'Endpoint URL', exact: true })
      .fill('https://hooks.example.com/new');
    await edit.getByRole('radio', { name: 'Selected events', exact: true }).check();
    await edit.getByRole('checkbox', { name: 'campaign.scheduled', exact: true }).check();
    await edit.getByRole('checkbox', { name: 'brand_key.expiring', exact: true }).check();
    await edit.getByRole('button', { name: 'Save changes', exact: true }).click();
    await expectHeading(page, 'https://hooks.example.com/new');
    await page.getByRole('status').filter({ hasText: 'Endpoint saved' }).waitFor();
    const events = page.getByRole('heading', { level: 2, name: 'Events', exact: true });
    expect(
      await events.locator('xpath=following-sibling::ul[1]').getByRole('listitem').allInnerTexts(),
    ).toEqual(['brand_key.expiring', 'campaign.scheduled']);
    expect(await getWebhook(f.testApp.deps, f.workspaceId, webhook.id)).toMatchObject({
      url: 'https://hooks.example.com/new',
      events: ['brand_key.expiring', 'campaign.scheduled'],
    });
    await expectNoPageProblems(session, 'Webhooks (edit)');
  });

  it('pages through the delivery log with Load more and filters it by status', async () => {
    const f = fixture();
    // No worker runs in this test: the deliveries stay pending.
    const webhook = await addEndpoint(f, 'https://hooks.example.com/log');
    cleanups.push(() => deleteWebhook(f.testApp.deps, OPERATOR, f.workspaceId, webhook.id));
    for (let sent = 0; sent < 25; sent++)
      await sendWebhookTest(f.testApp.deps, OPERATOR, f.workspaceId, webhook.id);
    const session = await f.open(f.owner);
    const { page } = session;
    await page.goto(endpointPage(f, webhook.id));
    const deliveries = page.getByRole('table', { name: 'Deliveries', exact: true });
    // A header row and the first page.
    await eventually(() => deliveries.getByRole('row').count(), 21);
    expect(
      await deliveries.getByRole('button', { name: /^Retry / }).count(),
      'pending: nothing to retry',
    ).toBe(0);
    await expectLoadMoreAndFilter(page, deliveries, 25, {
      none: 'failed',
      emptyText: 'No failed deliveries.',
      all: 'pending',
    });
    await expectNoPageProblems(session, 'Webhooks (delivery log)');
  });

  it('tells a member that only owners and admins manage webhooks, and shows them no endpoint', async () => {
    const f = fixture();
    const webhook = await addEndpoint(f, 'https://hooks.example.com/members-cannot-see');
    cleanups.push(() => deleteWebhook(f.testApp.deps, OPERATOR, f.workspaceId, webhook.id));
    const session = await f.open(f.member);
    const { page } = session;
    await navigate(page, 'Webhooks');
    await page.getByText('Only owners and admins manage webhooks.', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Add endpoint', exact: true }).count()).toBe(0);
    expect(await page.getByRole('table').count()).toBe(0);

    await page.goto(endpointPage(f, webhook.id));
    await expectHeading(page, 'Webhook endpoint');
    await page.getByText('Only owners and admins manage webhooks.', { exact: true }).waitFor();
    expect(await page.content()).not.toContain(webhook.url);
    for (const button of ['Reveal secret', 'Rotate secret', 'Send test event', 'Delete'])
      expect(await page.getByRole('button', { name: button, exact: true }).count(), button).toBe(0);
    await expectNoPageProblems(session, 'Webhooks (member)');
  });
});
