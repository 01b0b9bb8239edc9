import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { type Actor, OPERATOR } from '../../src/services/audit/audit.js';
import { createApiKey, createBrandKey } from '../../src/services/keys/keys.js';
import { addMember } from '../../src/services/accounts/members.js';
import { findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import {
  CONSOLE_VIEWPORTS,
  cellOf,
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  rowOf,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';
import { createWebhook } from '../../src/services/webhooks/webhooks.js';

const CHECKBOX = 'Also revoke their keys and disable their webhooks';
const LONG_URL =
  'https://hooks.acme-coffee-roasters.example/integrations/brand-context/webhooks/receiver-of-the-departing-admin?source=console';

/** What a leaving admin made: a brand read key, a workspace API key and an endpoint, each named after them. */
interface Leaver {
  email: string;
  brandKeyName: string;
  brandKey: string;
  apiKeyName: string;
  url: string;
}

/** An element as the page-side check below measures it (the project compiles without lib.dom). */
interface Measured {
  textContent: string | null;
  scrollWidth: number;
  clientWidth: number;
  getBoundingClientRect(): { right: number };
}

/**
 * How far the page and the open dialog reach past the window's width (0: nothing scrolls sideways), and the
 * "Created by" cells whose address runs out of them (cut off by the card or table around them).
 */
function overflow(page: Page): Promise<{ page: number; dialog: number; clippedCreators: string[] }> {
  return page.evaluate(() => {
    const window = globalThis as unknown as {
      innerWidth: number;
      document: {
        documentElement: { scrollWidth: number };
        querySelector(selector: string): Measured | null;
        querySelectorAll(selector: string): ArrayLike<Measured>;
      };
    };
    const dialog = window.document.querySelector('dialog[open]');
    const cells = Array.from(window.document.querySelectorAll('td.cell-email'));
    return {
      clippedCreators: cells
        .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
        .map((cell) => cell.textContent ?? ''),
      page: Math.max(0, window.document.documentElement.scrollWidth - window.innerWidth),
      dialog:
        dialog === null
          ? 0
          : Math.max(
              0,
              dialog.scrollWidth - dialog.clientWidth,
              Math.ceil(dialog.getBoundingClientRect().right - window.innerWidth),
            ),
    };
  });
}

describeInBrowser('Removing a member who created keys and webhooks (Members, Agent Access, Webhooks)', () => {
  const fixture = useBrowserFixture();
  const leavers: Record<'keeping' | 'revoking', Leaver> = {} as Record<'keeping' | 'revoking', Leaver>;

  beforeAll(async () => {
    const f = fixture();
    const { deps } = f.testApp;
    for (const which of ['keeping', 'revoking'] as const) {
      const email = `departing.${which}.administrator@acme-coffee-roasters.example`;
      const user = await findOrCreateUser(deps, email);
      await addMember(deps, f.testApp.app.services.accountMail, OPERATOR, 'owner', f.workspaceId, {
        email,
        role: 'admin',
      });
      const actor: Actor = { kind: 'user', userId: user.id, email };
      const brandKeyName = `Newsletter pipeline (${which})`;
      const apiKeyName = `CRM sync (${which})`;
      const brandKey = await createBrandKey(deps, actor, { workspaceId: f.workspaceId, name: brandKeyName });
      await createApiKey(deps, actor, { workspaceId: f.workspaceId, name: apiKeyName });
      const url = `${LONG_URL}&who=${which}`;
      await createWebhook(f.testApp.deps, actor, f.workspaceId, { url, events: ['*'] });
      leavers[which] = { email, brandKeyName, brandKey: brandKey.key, apiKeyName, url };
    }
  });

  /** Opens the Remove dialog of `leaver` on the Members page. */
  async function openRemoval(page: Page, leaver: Leaver): Promise<Locator> {
    const f = fixture();
    await page.goto(`/w/${f.workspaceId}/members`);
    await expectHeading(page, 'Members');
    const table = page.getByRole('table', { name: 'Members', exact: true });
    await table.getByRole('button', { name: `Remove ${leaver.email}`, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: `Remove ${leaver.email}?`, exact: true });
    await dialog.getByRole('checkbox', { name: CHECKBOX, exact: true }).waitFor({ timeout: WAIT_MS });
    return dialog;
  }

  it('lists what the member created in the Remove dialog, with the box to revoke it, fitting 390, 1280 and 1366 px', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const leaver = leavers.keeping;
    for (const viewport of CONSOLE_VIEWPORTS) {
      await page.setViewportSize(viewport);
      const dialog = await openRemoval(page, leaver);
      for (const text of [
        leaver.brandKeyName,
        leaver.apiKeyName,
        leaver.url,
        'keep working after they leave unless you revoke them',
      ])
        await dialog.getByText(text).waitFor({ timeout: WAIT_MS });
      expect(await dialog.getByRole('checkbox', { name: CHECKBOX, exact: true }).isChecked()).toBe(false);
      expect(await overflow(page), `the dialog at ${String(viewport.width)} px`).toEqual({
        page: 0,
        dialog: 0,
        clippedCreators: [],
      });
      await screenshot(page, `member-removal-dialog-${String(viewport.width)}`, { fullPage: false });
      await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
      await dialog.waitFor({ state: 'detached' });
    }
    await expectNoPageProblems(session, 'the Remove dialog');
  });

  it('removes without the box ticked: the keys keep working, and Agent Access and Webhooks mark them "Former member" at every width', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const leaver = leavers.keeping;
    const dialog = await openRemoval(page, leaver);
    await dialog.getByRole('button', { name: 'Remove member', exact: true }).click();
    await page.getByText(`${leaver.email} removed`, { exact: true }).waitFor({ timeout: WAIT_MS });
    expect((await f.readBrand(leaver.brandKey)).status).toBe(200);

    for (const viewport of CONSOLE_VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page.goto(`/w/${f.workspaceId}/settings/agent-access`);
      await expectHeading(page, 'Agent Access');
      for (const [table, name] of [
        ['Brand read keys', leaver.brandKeyName],
        ['Workspace API keys', leaver.apiKeyName],
      ] as const) {
        const cell = await cellOf(page.getByRole('table', { name: table, exact: true }), name, 'Created by');
        await cell.getByText('Former member', { exact: true }).waitFor({ timeout: WAIT_MS });
        expect(await cell.innerText()).toContain(leaver.email.split('@')[0]);
      }
      // The seeded key was made with the CLI: no badge.
      const seeded = await cellOf(
        page.getByRole('table', { name: 'Brand read keys', exact: true }),
        f.seededKeyName,
        'Created by',
      );
      expect((await seeded.innerText()).trim()).toBe('CLI');
      expect(await overflow(page), `Agent Access at ${String(viewport.width)} px`).toEqual({
        page: 0,
        dialog: 0,
        clippedCreators: [],
      });
      await screenshot(page, `member-removal-agent-access-${String(viewport.width)}`);

      await page.goto(`/w/${f.workspaceId}/settings/webhooks`);
      await expectHeading(page, 'Webhooks');
      const endpoints = page.getByRole('table', { name: 'Webhook endpoints', exact: true });
      await rowOf(endpoints, leaver.url).waitFor({ timeout: WAIT_MS });
      const creator = await cellOf(endpoints, leaver.url, 'Created by');
      await creator.getByText('Former member', { exact: true }).waitFor({ timeout: WAIT_MS });
      expect(await overflow(page), `Webhooks at ${String(viewport.width)} px`).toEqual({
        page: 0,
        dialog: 0,
        clippedCreators: [],
      });
      await screenshot(page, `member-removal-webhooks-${String(viewport.width)}`);
    }
    await expectNoPageProblems(session, 'the listings after a removal');
  });

  it('removes with the box ticked: their keys stop working at once and their endpoint is disabled, and the notice says so', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const leaver = leavers.revoking;
    expect((await f.readBrand(leaver.brandKey)).status).toBe(200);
    const dialog = await openRemoval(page, leaver);
    await dialog.getByRole('checkbox', { name: CHECKBOX, exact: true }).check();
    await dialog.getByRole('button', { name: 'Remove member', exact: true }).click();
    await page
      .getByText(`${leaver.email} removed; 2 keys revoked, 1 webhook endpoint disabled`, { exact: true })
      .waitFor({ timeout: WAIT_MS });
    expect((await f.readBrand(leaver.brandKey)).body).toMatchObject({ code: 'key_revoked' });

    await page.goto(`/w/${f.workspaceId}/settings/webhooks`);
    await expectHeading(page, 'Webhooks');
    const endpoints = page.getByRole('table', { name: 'Webhook endpoints', exact: true });
    const status = await cellOf(endpoints, leaver.url, 'Status');
    await status.getByText('Disabled', { exact: true }).waitFor({ timeout: WAIT_MS });
    await page.goto(`/w/${f.workspaceId}/settings/agent-access`);
    await expectHeading(page, 'Agent Access');
    const keyStatus = await cellOf(
      page.getByRole('table', { name: 'Brand read keys', exact: true }),
      leaver.brandKeyName,
      'Status',
    );
    await keyStatus.getByText('Revoked', { exact: true }).waitFor({ timeout: WAIT_MS });
    await expectNoPageProblems(session, 'a removal that revokes');
  });
});
