import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { newEmailMessageSchema } from '../../src/contract/email.js';
import { newId } from '../../src/core/base62.js';
import { type Actor, OPERATOR } from '../../src/services/audit/audit.js';
import { createApiKey, createBrandKey } from '../../src/services/keys/keys.js';
import { addMember } from '../../src/services/accounts/members.js';
import { findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import {
  CONSOLE_VIEWPORTS,
  DAY_MS,
  describeInBrowser,
  type DomElement,
  expectHeading,
  expectNoPageProblems,
  rowOf,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';
import { emailKeyWithSender } from '#test/support/fixtures/email.js';
import { createPersonalToken } from '../../src/services/auth/tokens.js';
import { sendEmail } from '../../src/services/email/messages.js';
import { createWebhook, sendWebhookTest } from '../../src/services/webhooks/webhooks.js';

/** The little of the DOM the page-side check below touches (the project compiles without lib.dom). */
interface Box {
  left: number;
  right: number;
}
interface LayoutElement {
  parentElement: LayoutElement | null;
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): Box;
  querySelector(selectors: string): LayoutElement | null;
}
interface LayoutWindow {
  innerWidth: number;
  document: {
    documentElement: { scrollWidth: number };
    querySelectorAll(selectors: string): ArrayLike<LayoutElement>;
  };
  getComputedStyle(element: LayoutElement): { overflowX: string };
}

interface Layout {
  innerWidth: number;
  scrollWidth: number;
  rowButtons: number;
  /** Row buttons that are not wholly in view: off the window, or clipped by a scrolling ancestor. */
  hiddenRowButtons: string[];
  /** Tables (by caption) that scroll sideways inside their frame. */
  scrollingTables: string[];
}

/** How wide the page is, and whether every button in a table row can be seen without scrolling sideways. */
function measure(page: Page): Promise<Layout> {
  return page.evaluate(() => {
    const window = globalThis as unknown as LayoutWindow;
    const buttons = Array.from(window.document.querySelectorAll('table tbody button'));
    const hidden = buttons.filter((button) => {
      const box = button.getBoundingClientRect();
      if (box.left < 0 || box.right > window.innerWidth) return true;
      for (let at = button.parentElement; at !== null; at = at.parentElement) {
        if (window.getComputedStyle(at).overflowX === 'visible') continue;
        const clip = at.getBoundingClientRect();
        if (box.left < clip.left - 0.5 || box.right > clip.right + 0.5) return true;
      }
      return false;
    });
    const scrolling = Array.from(window.document.querySelectorAll('.table-wrap')).filter(
      (frame) => frame.scrollWidth > frame.clientWidth,
    );
    return {
      innerWidth: window.innerWidth,
      scrollWidth: window.document.documentElement.scrollWidth,
      rowButtons: buttons.length,
      hiddenRowButtons: hidden.map((button) => (button.textContent ?? '').trim()),
      scrollingTables: scrolling.map((frame) => frame.querySelector('caption')?.textContent ?? '?'),
    };
  });
}

/** What measuring lines of text takes of the page's document. */
interface TextLines {
  createRange(): { selectNodeContents(node: unknown): void; getClientRects(): Iterable<{ top: number }> };
}

/**
 * The parts of the addresses in `list`'s email column that take more than one line: an address may wrap
 * after its "@", not inside "acme.example".
 */
function addressesBrokenMidWord(list: Locator): Promise<string[]> {
  return list.locator('.cell-email .email-part').evaluateAll((parts: DomElement[]) =>
    parts.flatMap((part) => {
      const range = (globalThis as unknown as { document: TextLines }).document.createRange();
      range.selectNodeContents(part);
      const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)));
      return lines.size > 1 ? [part.textContent ?? ''] : [];
    }),
  );
}

/** What the page-side check below reads of a form control (the project compiles without lib.dom). */
interface Control {
  tagName: string;
  value: string;
  clientWidth: number;
  clientHeight: number;
  scrollWidth: number;
  scrollHeight: number;
  selectedIndex: number;
  options: ArrayLike<{ text: string }>;
  getBoundingClientRect(): Box;
}
interface MeasuringWindow {
  innerWidth: number;
  getComputedStyle(element: Control): { font: string; paddingLeft: string; paddingRight: string };
  document: {
    createElement(tag: 'canvas'): {
      getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } };
    };
  };
}

/** How much of a control's value is out of sight: by its own frame, or by the window's edges. */
interface Clipping {
  value: string;
  /** Wholly inside the window. */
  inWindow: boolean;
  /** The value shows whole: nothing scrolled out of the box (a select: its chosen option's label fits). */
  wholeValue: boolean;
}

/** Whether `control` and its value can be seen whole, without scrolling it or the page. */
function clipping(control: Locator): Promise<Clipping> {
  return control.evaluate((element: unknown) => {
    const field = element as Control;
    const window = globalThis as unknown as MeasuringWindow;
    const box = field.getBoundingClientRect();
    const inWindow = box.left >= -0.5 && box.right <= window.innerWidth + 0.5;
    if (field.tagName !== 'SELECT')
      return {
        value: field.value,
        inWindow,
        wholeValue: field.scrollWidth <= field.clientWidth && field.scrollHeight <= field.clientHeight,
      };
    // A closed select cuts its label at its arrow without saying so: measure the label in its font.
    const style = window.getComputedStyle(field);
    const context = window.document.createElement('canvas').getContext('2d');
    context.font = style.font;
    const label = field.options[field.selectedIndex]?.text ?? '';
    const arrow = 24;
    const room =
      field.clientWidth -
      Number.parseFloat(style.paddingLeft) -
      Number.parseFloat(style.paddingRight) -
      arrow;
    return { value: label, inWindow, wholeValue: context.measureText(label).width <= room };
  });
}

describeInBrowser('The console at 390, 1280 and 1366 px: no sideways scrolling, row actions in view', () => {
  const fixture = useBrowserFixture();
  const longKeyName = 'Newsletter pipeline for the winter subscription campaign';
  const longWebhookUrl =
    'https://hooks.acme-coffee-roasters.example/integrations/brand-context/webhooks/receiver?source=console';
  const longSubject = 'Your order 1042 from Acme Coffee Roasters has shipped and is on its way to you';
  const longRecipient = 'marketing.operations@acme-coffee-roasters.example';
  let webhookId = '';

  // Keys as a busy workspace has them: made in the console by someone with a long address, used, one
  // about to expire. Each of those widens a column ("Created by", "Last used" with its time, "Expires soon").
  beforeAll(async () => {
    const f = fixture();
    const { deps, store } = f.testApp;
    const creator = await findOrCreateUser(deps, 'marketing.operations@acme-coffee-roasters.example');
    await addMember(deps, f.testApp.app.services.accountMail, OPERATOR, 'owner', f.workspaceId, {
      email: creator.email,
      role: 'admin',
    });
    const byCreator: Actor = { kind: 'user', userId: creator.id, email: creator.email };
    f.syncClock(-80 * DAY_MS);
    await createBrandKey(deps, byCreator, { workspaceId: f.workspaceId, name: 'Old website build' });
    f.syncClock();
    const used = await createBrandKey(deps, byCreator, { workspaceId: f.workspaceId, name: longKeyName });
    expect((await f.readBrand(used.key)).status).toBe(200);
    await createApiKey(deps, byCreator, { workspaceId: f.workspaceId, name: 'CRM sync' });
    const owner = await store.users.get(f.owner.userId);
    if (!owner) throw new Error('owner missing');
    await createPersonalToken(deps, owner, { name: 'Claude Desktop', expiresInDays: 30 });

    // A webhook endpoint with a long address, failing: one delivery retrying after a slow 503 with a long
    // reason, and one pending.
    const endpoint = await createWebhook(deps, OPERATOR, f.workspaceId, {
      url: longWebhookUrl,
      events: ['brand.updated', 'campaign.created', 'campaign.scheduled', 'member.added'],
      description: 'Order system in the roastery',
    });
    webhookId = endpoint.id;
    await sendWebhookTest(deps, OPERATOR, f.workspaceId, endpoint.id);
    const now = f.testApp.clock.now();
    const [claimed] = await store.deliveries.claim({
      lease: 'layout',
      now: new Date(now).toISOString(),
      leaseUntil: new Date(now + 60_000).toISOString(),
      limit: 1,
    });
    if (!claimed) throw new Error('the test delivery was not claimed');
    await store.deliveries.settle(
      claimed.id,
      'layout',
      {
        attempt: 1,
        attemptedAt: new Date(now).toISOString(),
        responseStatus: 503,
        durationMs: 1432,
        error: 'the endpoint answered 503: upstream connect error or disconnect/reset before headers',
      },
      { status: 'retrying', nextAttemptAt: new Date(now + 5 * 60_000).toISOString() },
    );
    await sendWebhookTest(deps, OPERATOR, f.workspaceId, endpoint.id);

    // Email as a busy workspace has it: a message to more recipients than a row names, with tags, one of
    // them bounced with a long answer (and so suppressed); and one captured, for the development mailbox.
    await emailKeyWithSender(f.testApp, f.workspaceId, 'acme-coffee-roasters.example');
    const from = 'Acme Coffee Roasters Customer Care <customer.care@acme-coffee-roasters.example>';
    await sendEmail(
      deps,
      f.workspaceId,
      newEmailMessageSchema.parse({
        from,
        to: [longRecipient, 'wholesale.orders@acme-coffee-roasters.example', 'ada@example.com'],
        cc: 'roastery.floor.manager@acme-coffee-roasters.example',
        subject: longSubject,
        text: 'Your order is on its way.',
        tags: { order: '1042', campaign: 'winter-blend-launch-announcement' },
      }),
    );
    await sendEmail(
      deps,
      f.workspaceId,
      newEmailMessageSchema.parse({ from, to: 'ada@example.com', subject: 'Welcome', text: 'Hello.' }),
    );
    const bounce =
      '550 5.1.1 <marketing.operations@acme-coffee-roasters.example>: Recipient address rejected: User unknown in virtual mailbox table';
    const at = new Date(now).toISOString();
    const copies = await store.emailQueue.claim({
      lease: 'layout',
      now: at,
      leaseUntil: new Date(now + 60_000).toISOString(),
      limit: 10,
    });
    for (const { recipient, message } of copies) {
      // The rest (the invite of the member added above among them) stays queued.
      const bounced = message.subject === longSubject && recipient.email === longRecipient;
      const status = bounced ? 'bounced' : message.subject === 'Welcome' ? 'captured' : undefined;
      if (status === undefined) {
        await store.emailQueue.release(recipient.id, 'layout');
        continue;
      }
      const response = bounced ? bounce : 'SMTP_URL is not set: kept in the mailbox';
      await store.emailQueue.settle(recipient.id, 'layout', {
        eventId: newId('ee'),
        status,
        attempts: 1,
        nextAttemptAt: null,
        response,
        at,
      });
      if (bounced)
        await store.email.suppress({
          workspaceId: f.workspaceId,
          email: recipient.email,
          reason: 'bounced',
          detail: bounce,
          messageId: message.id,
          createdAt: at,
        });
    }
  });

  /** Each page, with what shows that its content has loaded, and how many row buttons it has at least. */
  function pages(): {
    name: string;
    path: string;
    title: string;
    ready: (page: Page) => Promise<void>;
    rowButtons: number;
  }[] {
    const f = fixture();
    const workspace = `/w/${f.workspaceId}`;
    const table = (page: Page, name: string) => page.getByRole('table', { name, exact: true });
    return [
      {
        name: 'brand',
        path: `${workspace}/brand`,
        title: 'Brand',
        rowButtons: 0,
        ready: (page) =>
          expect
            .poll(() => page.getByRole('textbox', { name: 'Name', exact: true }).inputValue(), {
              timeout: WAIT_MS,
            })
            .toBe('Acme Coffee'),
      },
      {
        name: 'brand-history',
        path: `${workspace}/brand/history?from=1&to=2`,
        title: 'Brand history',
        // Restore on every version but the published one (the seed's two versions).
        rowButtons: 1,
        ready: async (page) => {
          await rowOf(table(page, 'Brand versions'), 'Version 1').waitFor();
          await table(page, 'Changes to Voice').waitFor();
        },
      },
      {
        name: 'brand-version',
        path: `${workspace}/brand/history/1`,
        title: 'Version 1',
        rowButtons: 0,
        ready: (page) => page.getByRole('button', { name: 'Restore this version', exact: true }).waitFor(),
      },
      {
        name: 'campaigns',
        path: `${workspace}/campaigns`,
        title: 'Campaign drafts',
        rowButtons: 0,
        ready: (page) => rowOf(table(page, 'Campaigns'), f.campaignName).waitFor(),
      },
      {
        name: 'campaign-editor',
        path: `${workspace}/campaigns/${f.campaignId}`,
        title: f.campaignName,
        rowButtons: 0,
        ready: (page) =>
          expect
            .poll(() => page.getByRole('textbox', { name: 'Subject', exact: true }).inputValue(), {
              timeout: WAIT_MS,
            })
            .not.toBe(''),
      },
      {
        name: 'new-draft',
        path: `${workspace}/campaigns/new`,
        title: 'New draft',
        rowButtons: 0,
        ready: (page) => page.getByRole('button', { name: 'Save draft', exact: true }).waitFor(),
      },
      {
        name: 'members',
        path: `${workspace}/members`,
        title: 'Members',
        rowButtons: 4,
        ready: async (page) => {
          await rowOf(table(page, 'Members'), f.member.email).waitFor();
          expect(await addressesBrokenMidWord(table(page, 'Members'))).toEqual([]);
        },
      },
      {
        name: 'audit-log',
        path: `${workspace}/audit-log`,
        title: 'Audit log',
        rowButtons: 0,
        ready: (page) => table(page, 'Audit log').getByRole('row').nth(1).waitFor(),
      },
      {
        name: 'agent-access',
        path: `${workspace}/settings/agent-access`,
        title: 'Agent Access',
        // The seeded key, the old one, the long-named one and the workspace API key.
        rowButtons: 4,
        ready: async (page) => {
          await rowOf(table(page, 'Brand read keys'), longKeyName).waitFor();
          await rowOf(table(page, 'Workspace API keys'), 'CRM sync').waitFor();
        },
      },
      {
        name: 'webhooks',
        path: `${workspace}/settings/webhooks`,
        title: 'Webhooks',
        rowButtons: 0,
        ready: (page) => rowOf(table(page, 'Webhook endpoints'), longWebhookUrl).waitFor(),
      },
      {
        name: 'webhook-endpoint',
        path: `${workspace}/settings/webhooks/${webhookId}`,
        title: longWebhookUrl,
        // Details for both deliveries, Retry for the one that failed.
        rowButtons: 3,
        ready: (page) => rowOf(table(page, 'Deliveries'), '503').waitFor(),
      },
      {
        name: 'email',
        path: `${workspace}/settings/email`,
        title: 'Email',
        // Details of both messages, Open of the captured one, Remove of the bounced address.
        rowButtons: 4,
        ready: async (page) => {
          await rowOf(table(page, 'Messages'), longSubject).waitFor();
          await rowOf(table(page, 'Captured messages'), 'Welcome').waitFor();
          await rowOf(table(page, 'Suppressions'), longRecipient).waitFor();
        },
      },
      {
        name: 'access-tokens',
        path: '/account/tokens',
        title: 'Personal access tokens',
        rowButtons: 1,
        ready: (page) => rowOf(table(page, 'Access tokens'), 'Claude Desktop').waitFor(),
      },
    ];
  }

  it('shows each role of Add a member and each new key or token whole at 390 px, with nothing cut off', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await page.setViewportSize(CONSOLE_VIEWPORTS[0]);
    const whole = (value: string): Clipping => ({ value, inWindow: true, wholeValue: true });

    await page.goto(`/w/${f.workspaceId}/members`);
    await expectHeading(page, 'Members');
    const role = page.getByRole('combobox', { name: 'Role', exact: true });
    const roles: Clipping[] = [];
    for (const value of ['member', 'admin', 'owner']) {
      await role.selectOption(value);
      roles.push(await clipping(role));
    }
    expect(roles).toEqual(roles.map(({ value }) => whole(value)));
    await screenshot(page, 'layout-members-role-390');

    await page.goto(`/w/${f.workspaceId}/settings/agent-access`);
    await expectHeading(page, 'Agent Access');
    const shown: Clipping[] = [];
    for (const [create, label] of [
      ['Create key', 'Brand read key'],
      ['Create API key', 'Workspace API key'],
    ] as const) {
      await page.getByRole('button', { name: create, exact: true }).click();
      const name = page.getByRole('dialog').getByRole('textbox', { name: 'Key name', exact: true });
      await name.fill('Newsletter pipeline');
      shown.push(await clipping(name));
      await page.getByRole('dialog').getByRole('button', { name: 'Create', exact: true }).click();
      const key = page.getByRole('dialog').getByRole('textbox', { name: label, exact: true });
      await key.waitFor();
      shown.push(await clipping(key));
      await screenshot(page, `layout-new-key-${label.replaceAll(' ', '-')}-390`, { fullPage: false });
      await page.getByRole('dialog').getByRole('button', { name: 'Done', exact: true }).click();
      await key.waitFor({ state: 'detached' });
    }

    await page.goto('/account/tokens');
    await expectHeading(page, 'Personal access tokens');
    await page
      .getByRole('textbox', { name: 'Token name', exact: true })
      .fill('Cursor on the roastery laptop');
    await page.getByRole('button', { name: 'Create token', exact: true }).click();
    const token = page.getByRole('textbox', { name: 'Access token', exact: true });
    await token.waitFor();
    shown.push(await clipping(token));
    expect(shown).toEqual(shown.map(({ value }) => whole(value)));
    await expectNoPageProblems(session, 'Add a member, new keys and tokens at 390 px');
  });

  for (const viewport of CONSOLE_VIEWPORTS) {
    it(`fits every signed-in page into ${String(viewport.width)} px, with each row's buttons in view`, async () => {
      const f = fixture();
      const session = await f.open(f.owner);
      const { page } = session;
      await page.setViewportSize(viewport);
      const found: Record<string, Layout> = {};
      const expected: Record<string, Layout> = {};
      for (const target of pages()) {
        await page.goto(target.path);
        await expectHeading(page, target.title);
        await target.ready(page);
        const layout = await measure(page);
        found[target.name] = layout;
        expected[target.name] = {
          innerWidth: viewport.width,
          scrollWidth: Math.min(layout.scrollWidth, viewport.width),
          rowButtons: Math.max(layout.rowButtons, target.rowButtons),
          hiddenRowButtons: [],
          scrollingTables: [],
        };
        await screenshot(page, `layout-${target.name}-${String(viewport.width)}`);
      }
      expect(found).toEqual(expected);
      await expectNoPageProblems(session, `every page at ${String(viewport.width)} px`);
    });

    it(`fits the Sign in page into ${String(viewport.width)} px`, async () => {
      const f = fixture();
      const session = await f.open();
      const { page } = session;
      await page.setViewportSize(viewport);
      await page.goto('/sign-in');
      await expectHeading(page, 'Sign in');
      const layout = await measure(page);
      expect(layout.scrollWidth).toBeLessThanOrEqual(layout.innerWidth);
      await screenshot(page, `layout-sign-in-${String(viewport.width)}`);
      await expectNoPageProblems(session, `Sign in at ${String(viewport.width)} px`);
    });
  }
});
