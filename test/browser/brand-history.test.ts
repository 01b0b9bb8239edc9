import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { type BrandContext, type BrandDocument, parseBrandDocument } from '../../src/core/brand-context.js';
import type { Actor } from '../../src/services/audit/audit.js';
import { getBrand, replaceBrand } from '../../src/services/brand/brand.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import {
  cellOf,
  CONSOLE_VIEWPORTS,
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  navigate,
  pageWidth,
  rowOf,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/** The brand as a document to save again: what the service set itself left out, entries' ids kept. */
function documentOf(brand: BrandContext): BrandDocument {
  const { workspace_id: _id, updated_at: _at, version: _version, ...document } = brand;
  return parseBrandDocument(document);
}

const WINTER_PRIMARY = '#1F3A5F';
const WINTER_NOTE = 'Deeper primary for the winter campaign';
const PLAIN_VOICE = 'Warm, brief and plain. Say what the coffee tastes like.';

describeInBrowser('The brand’s history in the console', () => {
  const fixture = useBrowserFixture();
  let key: string;
  /** The versions the suite starts with: the seed's two, then the owner's and the admin's saves. */
  let launch: BrandContext;

  beforeAll(async () => {
    const f = fixture();
    const { deps } = f.testApp;
    key = (await createBrandKey(deps, { kind: 'operator' }, { workspaceId: f.workspaceId, name: 'reader' }))
      .key;
    launch = await getBrand(deps, f.workspaceId);
    const owner: Actor = { kind: 'user', userId: f.owner.userId, email: f.owner.email };
    const admin: Actor = { kind: 'user', userId: f.admin.userId, email: f.admin.email };
    const winter = documentOf(launch);
    await replaceBrand(
      deps,
      owner,
      f.workspaceId,
      { ...winter, colors: { ...winter.colors, primary: WINTER_PRIMARY } },
      { note: WINTER_NOTE },
    );
    const plain = documentOf(await getBrand(deps, f.workspaceId));
    await replaceBrand(deps, admin, f.workspaceId, { ...plain, voice: PLAIN_VOICE });
  });

  /** The History page, reached from the Brand page's link, once its table has loaded. */
  async function openHistory(page: Page) {
    await navigate(page, 'Brand');
    await page.getByRole('link', { name: 'History', exact: true }).click();
    await expectHeading(page, 'Brand history');
    const table = page.getByRole('table', { name: 'Brand versions', exact: true });
    await rowOf(table, 'Version 1').waitFor({ timeout: WAIT_MS });
    return table;
  }

  it('lists every version newest first, with who made it, when, its note and the sections it changed', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const table = await openHistory(page);

    const headers = await table.getByRole('rowheader').allInnerTexts();
    expect(headers.map((text) => /Version \d+/.exec(text)?.[0])).toEqual([
      'Version 4',
      'Version 3',
      'Version 2',
      'Version 1',
    ]);
    expect(await (await cellOf(table, 'Version 4', 'Who')).innerText()).toBe(f.admin.email);
    expect(await (await cellOf(table, 'Version 4', 'Note')).innerText()).toBe('No note');
    expect(await (await cellOf(table, 'Version 4', 'Sections changed')).innerText()).toBe('Voice');
    expect(await (await cellOf(table, 'Version 3', 'Who')).innerText()).toBe(f.owner.email);
    expect(await (await cellOf(table, 'Version 3', 'Note')).innerText()).toBe(WINTER_NOTE);
    expect(await (await cellOf(table, 'Version 3', 'Sections changed')).innerText()).toBe('Colors');
    expect(await (await cellOf(table, 'Version 2', 'Who')).innerText()).toBe('Operator (CLI)');
    // When: a date and a time, the exact instant in the markup.
    const when = (await cellOf(table, 'Version 3', 'When')).locator('time');
    expect(await when.getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // The published version is marked, and is the one row without Restore.
    expect(await rowOf(table, 'Version 4').getByText('Published', { exact: true }).count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Restore version 4', exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Restore version 3', exact: true }).waitFor();
    await expectNoPageProblems(session, 'Brand history');
  });

  it('opens a version read-only: the brand as it was then, nothing editable, and nothing to save', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const table = await openHistory(page);
    await table.getByRole('link', { name: 'Version 3', exact: true }).click();
    await expectHeading(page, 'Version 3');
    expect(page.url()).toContain(`/w/${f.workspaceId}/brand/history/3`);

    const primary = page.getByRole('textbox', { name: 'Primary color (hex)', exact: true });
    await expect.poll(() => primary.inputValue(), { timeout: WAIT_MS }).toBe(WINTER_PRIMARY);
    // Version 3 is before the admin's new voice.
    expect(await page.getByRole('textbox', { name: 'Voice', exact: true }).inputValue()).toBe(launch.voice);
    for (const name of ['Name', 'Voice', 'Primary color (hex)'])
      expect(await page.getByRole('textbox', { name, exact: true }).isDisabled(), name).toBe(true);
    expect(await page.getByRole('button', { name: 'Save brand', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Save draft', exact: true }).count()).toBe(0);
    await page.getByText(`by ${f.owner.email}`, { exact: false }).first().waitFor();
    await page.getByText(WINTER_NOTE, { exact: false }).first().waitFor();
    // The preview shows what a pinned read of that version returns.
    const preview = JSON.parse(
      await page.getByLabel('JSON response preview', { exact: true }).innerText(),
    ) as Record<string, unknown>;
    expect(preview.version).toBe(3);
    await page.getByRole('button', { name: 'Restore this version', exact: true }).waitFor();
    await expectNoPageProblems(session, 'Version 3');
  });

  it('compares two chosen versions side by side, one table per section that changed', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await openHistory(page);
    await page.getByRole('combobox', { name: 'From version', exact: true }).selectOption('2');
    await page.getByRole('combobox', { name: 'To version', exact: true }).selectOption('4');
    await page.getByRole('button', { name: 'Compare', exact: true }).click();
    await expect.poll(() => new URL(page.url()).search, { timeout: WAIT_MS }).toBe('?from=2&to=4');

    const colors = page.getByRole('table', { name: 'Changes to Colors', exact: true });
    const voice = page.getByRole('table', { name: 'Changes to Voice', exact: true });
    await colors.waitFor({ timeout: WAIT_MS });
    // Side by side: the field, what it was in version 2, what it is in version 4.
    expect((await colors.getByRole('columnheader').allInnerTexts()).map((text) => text.trim())).toEqual([
      'Field',
      'Version 2',
      'Version 4',
    ]);
    expect(await (await cellOf(colors, '/colors/primary', 'Version 2')).innerText()).toBe(
      launch.colors.primary,
    );
    expect(await (await cellOf(colors, '/colors/primary', 'Version 4')).innerText()).toBe(WINTER_PRIMARY);
    expect(await (await cellOf(voice, '/voice', 'Version 4')).innerText()).toBe(PLAIN_VOICE);
    // Only the sections that changed, in the brand's order.
    const tables = (await page.locator('table caption').allTextContents()).filter((caption) =>
      caption.startsWith('Changes to '),
    );
    expect(tables).toEqual(['Changes to Voice', 'Changes to Colors']);
    await expectNoPageProblems(session, 'Brand history (compare)');
  });

  it('lets a member read the history and any version, without Restore', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    const table = await openHistory(page);
    await page.getByText('Only owners and admins can restore a version.', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: /^Restore / }).count()).toBe(0);
    await table.getByRole('link', { name: 'Version 2', exact: true }).click();
    await expectHeading(page, 'Version 2');
    await page.getByRole('textbox', { name: 'Name', exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Restore this version', exact: true }).count()).toBe(0);
    await expectNoPageProblems(session, 'Brand history (member)');
  });

  it('lays out the history, a comparison and a version at 390, 1280 and 1366 px, without sideways scrolling or axe violations', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    for (const viewport of CONSOLE_VIEWPORTS) {
      await page.setViewportSize(viewport);
      const width = String(viewport.width);
      await page.goto(`/w/${f.workspaceId}/brand/history?from=2&to=4`);
      await expectHeading(page, 'Brand history');
      await page.getByRole('table', { name: 'Changes to Colors', exact: true }).waitFor({ timeout: WAIT_MS });
      expect(await pageWidth(page), `history at ${width} px`).toBeLessThanOrEqual(viewport.width);
      await expectNoSeriousAxeViolations(page, `Brand history at ${width} px`);
      await screenshot(page, `brand-history-${width}`);

      await page.goto(`/w/${f.workspaceId}/brand/history/3`);
      await expectHeading(page, 'Version 3');
      await page.getByRole('textbox', { name: 'Name', exact: true }).waitFor();
      expect(await pageWidth(page), `version at ${width} px`).toBeLessThanOrEqual(viewport.width);
      await expectNoSeriousAxeViolations(page, `Version 3 at ${width} px`);
      await screenshot(page, `brand-version-${width}`, { fullPage: false });

      await page.goto(`/w/${f.workspaceId}/brand/history`);
      await page.getByRole('button', { name: 'Restore version 2', exact: true }).click();
      await page.getByRole('dialog', { name: 'Restore version 2?', exact: true }).waitFor();
      await expectNoSeriousAxeViolations(page, `Restore dialog at ${width} px`);
      await screenshot(page, `brand-restore-dialog-${width}`, { fullPage: false });
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    }
    await expectNoPageProblems(session, 'Brand history (layout)');
  });

  it('restores a version only once confirmed, as a new version that the read operation then returns', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const table = await openHistory(page);
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${request.url()}`);
    });

    // Cancel sends nothing.
    await page.getByRole('button', { name: 'Restore version 2', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore version 2?', exact: true });
    await dialog.getByRole('button', { name: 'Cancel', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(writes).toEqual([]);

    await page.getByRole('button', { name: 'Restore version 2', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Note', exact: true }).fill('Back to the launch colors');
    await dialog.getByRole('button', { name: 'Restore version', exact: true }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Version 2 restored as version 5' })
      .waitFor({ timeout: WAIT_MS });
    await rowOf(table, 'Version 5').waitFor({ timeout: WAIT_MS });
    expect(await (await cellOf(table, 'Version 5', 'Note')).innerText()).toBe('Back to the launch colors');
    expect(await (await cellOf(table, 'Version 5', 'Who')).innerText()).toBe(f.owner.email);
    expect(await (await cellOf(table, 'Version 5', 'Sections changed')).innerText()).toBe('Voice, Colors');

    const read = await f.readBrand(key);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ version: 5, voice: launch.voice });
    expect((read.body.colors as { primary: string }).primary).toBe(launch.colors.primary);

    // From a version's own page: back to the history, which says what happened.
    await table.getByRole('link', { name: 'Version 3', exact: true }).click();
    await expectHeading(page, 'Version 3');
    await page.getByRole('button', { name: 'Restore this version', exact: true }).click();
    await page
      .getByRole('dialog', { name: 'Restore version 3?', exact: true })
      .getByRole('button', { name: 'Restore version', exact: true })
      .click();
    await expectHeading(page, 'Brand history');
    await page
      .getByRole('status')
      .filter({ hasText: 'Version 3 restored as version 6' })
      .waitFor({ timeout: WAIT_MS });
    expect(await (await cellOf(table, 'Version 6', 'Note')).innerText()).toBe('Restored version 3');
    await expectNoPageProblems(session, 'Brand history (restore)');
  });
});
