import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import type { BrandContext } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { getBrand } from '../../src/services/brand/brand.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import {
  cellOf,
  CONSOLE_VIEWPORTS,
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  fetchFromPage,
  navigate,
  pageWidth,
  rowOf,
  screenshot,
  SCREENSHOT_DIR,
  type Session,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

const DRAFT_VOICE = 'Plain and warm: say what the coffee tastes like, then stop.';
const DISCARDED_VOICE = 'A voice nobody will publish.';

describeInBrowser('Brand review in the console: the draft, its banner, Publish and Discard', () => {
  const fixture = useBrowserFixture();
  let key: string;
  let published: BrandContext;

  beforeAll(async () => {
    const f = fixture();
    key = (await createBrandKey(f.testApp.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'reader' }))
      .key;
    published = await getBrand(f.testApp.deps, f.workspaceId);
  });

  /** The Brand page once the form holds the brand (or the draft). */
  async function openBrand(session: Session): Promise<Page> {
    const { page } = session;
    await navigate(session.page, 'Brand');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).not.toBe('');
    return page;
  }

  const banner = (page: Page) => page.getByRole('region', { name: 'Unpublished changes', exact: true });

  it('lets an owner turn review on; a member has no such switch', async () => {
    const f = fixture();
    const member = await f.open(f.member);
    await openBrand(member);
    expect(
      await member.page
        .getByRole('checkbox', { name: 'Require review before publishing', exact: true })
        .count(),
    ).toBe(0);
    // With review off, a member reads the brand only.
    expect(await member.page.getByRole('button', { name: 'Save brand', exact: true }).count()).toBe(0);

    const owner = await f.open(f.owner);
    const page = await openBrand(owner);
    const toggle = page.getByRole('checkbox', { name: 'Require review before publishing', exact: true });
    expect(await toggle.isChecked()).toBe(false);
    await toggle.click();
    await page.getByRole('status').filter({ hasText: 'Review turned on' }).waitFor({ timeout: WAIT_MS });
    await page.getByRole('button', { name: 'Save draft', exact: true }).waitFor({ timeout: WAIT_MS });
    expect(await page.getByRole('button', { name: 'Save brand', exact: true }).count()).toBe(0);
    expect(await banner(page).count()).toBe(0);
    const workspace = await f.testApp.store.workspaces.get(f.workspaceId);
    expect(workspace?.brandReview).toBe('required');
    await expectNoPageProblems(owner, 'Brand (review on)');
  });

  it('lets a member save the draft, shows it as unpublished changes without Publish, and readers keep the published brand', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const page = await openBrand(session);
    await page.getByText('you edit a draft, and an owner or admin publishes it', { exact: false }).waitFor();
    await page.getByRole('textbox', { name: 'Voice', exact: true }).fill(DRAFT_VOICE);
    await page.getByRole('button', { name: 'Save draft', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Draft saved' }).waitFor({ timeout: WAIT_MS });

    await banner(page).waitFor({ timeout: WAIT_MS });
    expect(await banner(page).innerText()).toContain('changes Voice.');
    await banner(page).getByText('Only owners and admins can publish or discard the draft.').waitFor();
    expect(await page.getByRole('button', { name: 'Publish', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Discard draft', exact: true }).count()).toBe(0);

    // The published brand and every read of it stay as they were.
    const read = await f.readBrand(key);
    expect(read.body).toMatchObject({ version: published.version, voice: published.voice });
    const stored = await getBrand(f.testApp.deps, f.workspaceId);
    expect(stored.version).toBe(published.version);

    // And the page reloads with the draft in the form.
    await page.reload();
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Voice', exact: true }).inputValue(), {
        timeout: WAIT_MS,
      })
      .toBe(DRAFT_VOICE);
    // A member cannot publish by sending the call anyway.
    const refused = await fetchFromPage(page, {
      method: 'POST',
      path: `/api/v1/workspaces/${f.workspaceId}/brand/draft/publish`,
      body: {},
      csrf: 'session',
    });
    expect(refused.status).toBe(403);
    await expectNoPageProblems(session, 'Brand (member saves the draft)');
  });

  it('shows an owner the draft’s changes against the published brand, side by side', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const page = await openBrand(session);
    await banner(page).waitFor({ timeout: WAIT_MS });
    expect(await page.getByRole('textbox', { name: 'Voice', exact: true }).inputValue()).toBe(DRAFT_VOICE);
    await banner(page).getByText('Show the changes', { exact: true }).click();
    const voice = banner(page).getByRole('table', { name: 'Changes to Voice', exact: true });
    await voice.waitFor({ timeout: WAIT_MS });
    expect(await (await cellOf(voice, '/voice', 'Published')).innerText()).toBe(published.voice);
    expect(await (await cellOf(voice, '/voice', 'Draft')).innerText()).toBe(DRAFT_VOICE);
    await expectNoPageProblems(session, 'Brand (draft changes)');
  });

  it('lays out the review banner and its dialogs at 390, 1280 and 1366 px, axe-clean and without sideways scrolling', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    for (const viewport of CONSOLE_VIEWPORTS) {
      await page.setViewportSize(viewport);
      const width = String(viewport.width);
      await page.goto(`/w/${f.workspaceId}/brand`);
      await expectHeading(page, 'Brand');
      await banner(page).getByText('Show the changes', { exact: true }).click();
      await banner(page).getByRole('table', { name: 'Changes to Voice', exact: true }).waitFor();
      expect(await pageWidth(page), `Brand at ${width} px`).toBeLessThanOrEqual(viewport.width);
      await expectNoSeriousAxeViolations(page, `Brand with a draft at ${width} px`);
      await banner(page).screenshot({ path: join(SCREENSHOT_DIR, `brand-review-banner-${width}.png`) });
      await screenshot(page, `brand-review-${width}`, { fullPage: false });

      await page.getByRole('button', { name: 'Publish', exact: true }).click();
      await page.getByRole('dialog', { name: 'Publish the draft?', exact: true }).waitFor();
      await expectNoSeriousAxeViolations(page, `Publish dialog at ${width} px`);
      await screenshot(page, `brand-publish-dialog-${width}`, { fullPage: false });
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
    await expectNoPageProblems(session, 'Brand (review layout)');
  });

  it('publishes the draft with a note as a new version, which readers then get and the history lists', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const page = await openBrand(session);
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Publish the draft?', exact: true });
    await dialog.getByRole('textbox', { name: 'Note', exact: true }).fill('Plainer voice for winter');
    await dialog.getByRole('button', { name: 'Publish', exact: true }).click();
    const next = published.version + 1;
    await page
      .getByRole('status')
      .filter({ hasText: `Published as version ${String(next)}` })
      .waitFor({ timeout: WAIT_MS });
    await banner(page).waitFor({ state: 'detached' });

    const read = await f.readBrand(key);
    expect(read.body).toMatchObject({ version: next, voice: DRAFT_VOICE });

    await page.getByRole('link', { name: 'History', exact: true }).click();
    await expectHeading(page, 'Brand history');
    const table = page.getByRole('table', { name: 'Brand versions', exact: true });
    await rowOf(table, `Version ${String(next)}`).waitFor({ timeout: WAIT_MS });
    expect(await (await cellOf(table, `Version ${String(next)}`, 'Note')).innerText()).toBe(
      'Plainer voice for winter',
    );
    expect(await (await cellOf(table, `Version ${String(next)}`, 'Sections changed')).innerText()).toBe(
      'Voice',
    );
    await expectNoPageProblems(session, 'Brand (publish)');
  });

  it('discards a draft once confirmed: the form goes back to the published brand, which never changed', async () => {
    const f = fixture();
    const member = await f.open(f.member);
    const memberPage = await openBrand(member);
    await memberPage.getByRole('textbox', { name: 'Voice', exact: true }).fill(DISCARDED_VOICE);
    await memberPage.getByRole('button', { name: 'Save draft', exact: true }).click();
    await banner(memberPage).waitFor({ timeout: WAIT_MS });
    const before = await getBrand(f.testApp.deps, f.workspaceId);

    const session = await f.open(f.owner);
    const page = await openBrand(session);
    await banner(page).waitFor({ timeout: WAIT_MS });
    await page.getByRole('button', { name: 'Discard draft', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Discard the draft?', exact: true });
    await dialog.getByRole('button', { name: 'Discard draft', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Draft discarded' }).waitFor({ timeout: WAIT_MS });
    await banner(page).waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Voice', exact: true }).inputValue(), {
        timeout: WAIT_MS,
      })
      .toBe(before.voice);
    expect(await getBrand(f.testApp.deps, f.workspaceId)).toEqual(before);
    expect((await f.readBrand(key)).body).toMatchObject({ version: before.version, voice: before.voice });
    await expectNoPageProblems(session, 'Brand (discard)');
  });

  it('keeps a save of the draft from overwriting one made since: 412, and Reload shows theirs', async () => {
    const f = fixture();
    const member = await f.open(f.member);
    const memberPage = await openBrand(member);
    const memberVoice = memberPage.getByRole('textbox', { name: 'Voice', exact: true });
    await memberVoice.fill('First draft voice.');
    await memberPage.getByRole('button', { name: 'Save draft', exact: true }).click();
    await banner(memberPage).waitFor({ timeout: WAIT_MS });

    // The admin opens the draft as it is now…
    const admin = await f.open(f.admin);
    const page = await openBrand(admin);
    const voice = page.getByRole('textbox', { name: 'Voice', exact: true });
    expect(await voice.inputValue()).toBe('First draft voice.');
    // …the member saves again meanwhile…
    await memberVoice.fill('Second draft voice.');
    await memberPage.getByRole('button', { name: 'Save draft', exact: true }).click();
    await memberPage.getByRole('status').filter({ hasText: 'Draft saved' }).waitFor({ timeout: WAIT_MS });

    // …so the admin's save is refused, and nothing of it is written.
    await voice.fill('The admin’s voice.');
    await page.getByRole('button', { name: 'Save draft', exact: true }).click();
    const alert = page
      .getByRole('alert')
      .filter({ hasText: 'Someone else saved the draft since you opened it' });
    await alert.waitFor({ timeout: WAIT_MS });
    await alert.getByRole('button', { name: 'Reload', exact: true }).click();
    await expect.poll(() => voice.inputValue(), { timeout: WAIT_MS }).toBe('Second draft voice.');
    await expectNoPageProblems(admin, 'Brand (draft conflict)');
  });

  it('refuses to turn review off while a draft waits, and says why', async () => {
    const f = fixture();
    const member = await f.open(f.member);
    const memberPage = await openBrand(member);
    await memberPage.getByRole('textbox', { name: 'Voice', exact: true }).fill(DISCARDED_VOICE);
    await memberPage.getByRole('button', { name: 'Save draft', exact: true }).click();
    await banner(memberPage).waitFor({ timeout: WAIT_MS });

    const session = await f.open(f.owner);
    const page = await openBrand(session);
    const toggle = page.getByRole('checkbox', { name: 'Require review before publishing', exact: true });
    await toggle.click();
    await page.getByRole('alert').filter({ hasText: /draft/i }).waitFor({ timeout: WAIT_MS });
    expect((await f.testApp.store.workspaces.get(f.workspaceId))?.brandReview).toBe('required');
    await expect.poll(() => toggle.isChecked(), { timeout: WAIT_MS }).toBe(true);

    // Once the draft is discarded, review turns off, and the editor saves the brand directly again.
    await page.getByRole('button', { name: 'Discard draft', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Discard the draft?', exact: true })
      .getByRole('button', { name: 'Discard draft', exact: true })
      .click();
    await banner(page).waitFor({ state: 'detached' });
    await toggle.click();
    await page.getByRole('status').filter({ hasText: 'Review turned off' }).waitFor({ timeout: WAIT_MS });
    await page.getByRole('button', { name: 'Save brand', exact: true }).waitFor({ timeout: WAIT_MS });
    await expectNoPageProblems(session, 'Brand (review off)');
  });
});
