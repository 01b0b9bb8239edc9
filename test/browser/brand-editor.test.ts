import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { BRAND_FORMATS, brandView, renderBrandView } from '../../src/core/brand-views.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { getBrand } from '../../src/services/brand/brand.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import {
  containsFocus,
  describeInBrowser,
  type DomElement,
  type DomWindow,
  expectHeading,
  expectNoPageProblems,
  fetchedResources,
  isFocused,
  navigate,
  PageProblems,
  pageWidth,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
  whereInWindow,
} from './browser-harness.js';

/** The field's hint and error message, as aria-describedby points to them ("" when it points nowhere). */
function describedBy(field: Locator): Promise<string> {
  return field.evaluate((field: unknown) => {
    const { document } = globalThis as unknown as DomWindow;
    const ids = ((field as DomElement).getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
  });
}

function preview(page: Page): Promise<Record<string, unknown>> {
  return page
    .getByLabel('JSON response preview', { exact: true })
    .innerText()
    .then((text) => JSON.parse(text) as Record<string, unknown>);
}

/** The preview's tabs, one per format, in the order of BRAND_FORMATS. */
const FORMAT_TABS = ['JSON', 'Markdown', 'Design tokens'];

/** The token count each preview tab shows, in order; "counting…" until the tokenizer has loaded. */
async function tokenCounts(page: Page): Promise<(number | string)[]> {
  const tabs = page.getByRole('tablist', { name: 'Preview format', exact: true }).getByRole('tab');
  return (await tabs.allInnerTexts()).map((text) => {
    const count = /([\d,]+) tokens/.exec(text)?.[1];
    return count === undefined ? text : Number(count.replaceAll(',', ''));
  });
}

/** The brand form's sections, in the order of the form and of its section navigation. */
const SECTIONS = [
  'Basics',
  'Voice',
  'Colors',
  'Fonts',
  'Social links',
  'Knowledge',
  'Assets',
  'Skills',
  'Preferences',
  'Rules',
];
/** The section navigation's links: the form's sections, then the preview. */
const SECTION_LINKS = [...SECTIONS, 'Preview'];

/** `target` is in the window, and not under `above` (the sticky section navigation). */
async function expectInViewBelow(page: Page, target: Locator, above: Locator): Promise<void> {
  const height = page.viewportSize()?.height ?? 0;
  await expect
    .poll(
      async () => {
        const [box, cover] = [await target.boundingBox(), await above.boundingBox()];
        if (box === null || cover === null) return 'not shown';
        if (box.y < cover.y + cover.height - 1) return `under the navigation (${String(box.y)})`;
        return box.y + box.height <= height ? 'in view' : `below the window (${String(box.y)})`;
      },
      { timeout: WAIT_MS },
    )
    .toBe('in view');
}

describeInBrowser('The brand editor in the console', () => {
  const fixture = useBrowserFixture();
  let key: string;

  beforeAll(async () => {
    const f = fixture();
    key = (await createBrandKey(f.testApp.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'reader' }))
      .key;
  });

  /** The owner's Brand page, once the stored brand has loaded into the form. */
  async function openBrandPage() {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Brand');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).not.toBe('');
    return { f, session, page, name };
  }

  it('saves edits of name, voice, primary color and a knowledge entry, which the read operation then returns', async () => {
    const { f, session, page, name } = await openBrandPage();
    expect(await name.inputValue()).toBe('Acme Coffee');

    const voice = 'Bright and brief. Say what the coffee tastes like.';
    await name.fill('Acme Coffee Roasters');
    await page.getByRole('textbox', { name: 'Voice', exact: true }).fill(voice);
    await page.getByRole('textbox', { name: 'Primary color (hex)', exact: true }).fill('#2B4C7E');
    const firstTitle = page
      .getByRole('group', { name: 'Knowledge entry 1', exact: true })
      .getByRole('textbox', { name: 'Title', exact: true });
    await firstTitle.fill('Founded in Portland');
    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });

    await page.reload();
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).toBe('Acme Coffee Roasters');
    expect(await page.getByRole('textbox', { name: 'Voice', exact: true }).inputValue()).toBe(voice);
    expect(
      (
        await page.getByRole('textbox', { name: 'Primary color (hex)', exact: true }).inputValue()
      ).toUpperCase(),
    ).toBe('#2B4C7E');
    expect(await firstTitle.inputValue()).toBe('Founded in Portland');

    const read = await f.readBrand(key);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      name: 'Acme Coffee Roasters',
      voice,
      colors: expect.objectContaining({ primary: '#2B4C7E' }) as unknown,
    });
    expect((read.body.knowledge as { title: string }[])[0]?.title).toBe('Founded in Portland');
    // Untouched parts of the brand survive the round trip through the form.
    expect(read.body.knowledge).toHaveLength(20);
    expect(read.body.social).toEqual({
      website: 'https://acme-coffee.example',
      instagram: 'https://instagram.com/acmecoffee.example',
      linkedin: 'https://www.linkedin.com/company/acme-coffee-example',
    });
    await expectNoPageProblems(session, 'Brand (save)');
  });

  it('labels every part of the brand form as the contract names it', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Brand');
    await page.getByRole('textbox', { name: 'Name', exact: true }).waitFor();
    for (const label of ['Description', 'Voice', 'Heading font family', 'Body font family'])
      await page.getByRole('textbox', { name: label, exact: true }).waitFor();
    for (const role of ['Primary', 'Secondary', 'Accent', 'Background', 'Text']) {
      const hex = page.getByRole('textbox', { name: `${role} color (hex)`, exact: true });
      await hex.waitFor();
      const picker = page.getByLabel(`${role} color picker`, { exact: true });
      expect(await picker.getAttribute('type'), `${role} color picker`).toBe('color');
      // The picker shows the color the hex field holds (a native color input keeps lowercase hex).
      expect((await picker.inputValue()).toUpperCase()).toBe((await hex.inputValue()).toUpperCase());
    }
    for (const network of ['Website', 'Instagram'])
      await page.getByRole('textbox', { name: `${network} URL`, exact: true }).waitFor();
    // 20 knowledge entries, each a group with its four fields.
    for (let entry = 1; entry <= 20; entry++) {
      const group = page.getByRole('group', { name: `Knowledge entry ${String(entry)}`, exact: true });
      for (const label of ['Kind', 'Title', 'Content', 'Tags'])
        expect(
          await group.getByLabel(label, { exact: true }).count(),
          `${label} of entry ${String(entry)}`,
        ).toBe(1);
    }
    await expectNoPageProblems(session, 'Brand (labels)');
  });

  it('flags an invalid hex color as it is typed; Save then sends nothing, moves focus to the first invalid field and says why', async () => {
    const { f, session, page } = await openBrandPage();
    const before = await getBrand(f.testApp.deps, f.workspaceId);
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${request.url()}`);
    });

    const primary = page.getByRole('textbox', { name: 'Primary color (hex)', exact: true });
    const accent = page.getByRole('textbox', { name: 'Accent color (hex)', exact: true });
    const hint = await describedBy(primary);
    await primary.fill('#12');
    await accent.fill('blue');
    // Client-side: the field is invalid before anything is sent.
    await expect.poll(() => primary.getAttribute('aria-invalid'), { timeout: WAIT_MS }).toBe('true');
    // aria-describedby now also points at an error message (beside any hint it named before).
    expect((await describedBy(primary)).replace(hint, '').trim()).not.toBe('');
    expect(writes, 'typing sent nothing').toEqual([]);

    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Primary color (hex)' });
    await alert.waitFor({ timeout: WAIT_MS });
    const said = await alert.innerText();
    expect(said).toContain('2 fields');
    expect(said).toContain('Accent color (hex)');
    expect(said).toContain('#RRGGBB');
    await expect.poll(() => isFocused(primary), { timeout: WAIT_MS }).toBe(true);
    expect(await primary.getAttribute('aria-invalid')).toBe('true');
    expect(writes, 'Save sent nothing: no PUT reached the API').toEqual([]);
    expect(await page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(0);
    expect(await getBrand(f.testApp.deps, f.workspaceId)).toEqual(before);
    await screenshot(page, 'brand-save-refused', { fullPage: false });

    // Corrected, the same Save goes through.
    await primary.fill('#123456');
    await accent.fill('#654321');
    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    expect(writes.filter((write) => write.startsWith('PUT '))).toHaveLength(1);
    expect((await getBrand(f.testApp.deps, f.workspaceId)).colors.primary).toBe('#123456');
    await expectNoPageProblems(session, 'Brand (invalid hex)');
  });

  it('lists the form’s sections in a navigation that takes keyboard focus to the chosen section', async () => {
    const { session, page } = await openBrandPage();
    const sections = page.getByRole('navigation', { name: 'Brand sections', exact: true });
    expect(await sections.getByRole('link').allInnerTexts()).toEqual(SECTION_LINKS);

    // By keyboard: Tab from the first link to "Knowledge", then Enter.
    await sections.getByRole('link', { name: 'Basics', exact: true }).focus();
    const knowledgeLink = sections.getByRole('link', { name: 'Knowledge', exact: true });
    for (let tabs = 0; !(await isFocused(knowledgeLink)); tabs++) {
      expect(tabs, 'Tab presses to reach "Knowledge"').toBeLessThan(SECTION_LINKS.length);
      await page.keyboard.press('Tab');
    }
    await page.keyboard.press('Enter');
    const knowledge = page.getByRole('region', { name: 'Knowledge', exact: true });
    await expect.poll(() => containsFocus(knowledge), { timeout: WAIT_MS }).toBe(true);
    await expectInViewBelow(
      page,
      page.getByRole('heading', { level: 2, name: 'Knowledge', exact: true }),
      sections,
    );
    // The next Tab continues in that section: the first field of its first entry.
    await page.keyboard.press('Tab');
    expect(await containsFocus(page.getByRole('group', { name: 'Knowledge entry 1', exact: true }))).toBe(
      true,
    );
    await screenshot(page, 'brand-sections-1280', { fullPage: false });
    await expectNoPageProblems(session, 'Brand (section navigation)');
  });

  it('keeps the section navigation at hand at 390 px, without sideways scrolling', async () => {
    const { session, page } = await openBrandPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const sections = page.getByRole('navigation', { name: 'Brand sections', exact: true });
    for (const [link, heading] of [
      ['Preferences', 'Preferences'],
      ['Social links', 'Social links'],
      ['Basics', 'Basics'],
    ] as const) {
      await sections.getByRole('link', { name: link, exact: true }).click();
      await expectInViewBelow(
        page,
        page.getByRole('heading', { level: 2, name: heading, exact: true }),
        sections,
      );
      expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    }
    // Far down the form, the list is still in view.
    await sections.getByRole('link', { name: 'Skills', exact: true }).click();
    await expectInViewBelow(
      page,
      page.getByRole('heading', { level: 2, name: 'Skills', exact: true }),
      sections,
    );
    await screenshot(page, 'brand-sections-390', { fullPage: false });
    await expectNoPageProblems(session, 'Brand (section navigation at 390 px)');
  });

  it('reaches the preview, below the whole form at 390 px, with the "Preview" section link, and the form again with another', async () => {
    const { session, page } = await openBrandPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const sections = page.getByRole('navigation', { name: 'Brand sections', exact: true });
    // In view at once, at the end of the row of links that scrolls sideways under it.
    const link = sections.getByRole('link', { name: 'Preview', exact: true });
    const box = await link.boundingBox();
    expect(box !== null && box.x >= 0 && box.x + box.width <= 390, 'the Preview link is in view').toBe(true);
    await link.click();
    const previewHeading = page.getByRole('heading', { level: 2, name: 'Preview', exact: true });
    await expectInViewBelow(page, previewHeading, sections);
    expect(await isFocused(previewHeading)).toBe(true);
    await screenshot(page, 'brand-preview-link-390', { fullPage: false });
    await sections.getByRole('link', { name: 'Colors', exact: true }).click();
    await expectInViewBelow(
      page,
      page.getByRole('heading', { level: 2, name: 'Colors', exact: true }),
      sections,
    );
    expect(await pageWidth(page)).toBeLessThanOrEqual(390);
    await expectNoPageProblems(session, 'Brand (preview link at 390 px)');
  });

  it('asks before leaving with unsaved edits: a dialog for the console’s own links, the browser’s question for closing the tab', async () => {
    const { f, session, page, name } = await openBrandPage();
    // Nothing changed: leaving asks nothing.
    await navigate(page, 'Members');
    await navigate(page, 'Brand');
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).not.toBe('');

    await name.fill('Acme Coffee (not saved)');
    await page
      .getByRole('navigation', { name: 'Main', exact: true })
      .getByRole('link', { name: 'Members', exact: true })
      .click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?', exact: true });
    await leave.waitFor();
    await expect.poll(() => containsFocus(leave), { timeout: WAIT_MS }).toBe(true);
    await screenshot(page, 'brand-leave-dialog', { fullPage: false });
    await leave.getByRole('button', { name: 'Stay on this page', exact: true }).click();
    await leave.waitFor({ state: 'hidden' });
    await expectHeading(page, 'Brand');
    expect(await name.inputValue()).toBe('Acme Coffee (not saved)');

    // Closing the tab: the browser asks (beforeunload).
    const question = page.waitForEvent('dialog');
    await page.close({ runBeforeUnload: true });
    const asked = await question;
    expect(asked.type()).toBe('beforeunload');
    await asked.dismiss();
    expect(page.isClosed()).toBe(false);

    await page
      .getByRole('navigation', { name: 'Main', exact: true })
      .getByRole('link', { name: 'Members', exact: true })
      .click();
    await leave.getByRole('button', { name: 'Leave without saving', exact: true }).click();
    await expectHeading(page, 'Members');
    expect((await getBrand(f.testApp.deps, f.workspaceId)).name).not.toBe('Acme Coffee (not saved)');
    await expectNoPageProblems(session, 'Brand (unsaved edits)');
  });

  it('shows a field error of the API next to its field and saves nothing', async () => {
    const { f, session, page } = await openBrandPage();
    const before = await getBrand(f.testApp.deps, f.workspaceId);

    // The form does not check this one; the API needs a title on every knowledge entry (knowledge[0].title).
    const title = page
      .getByRole('group', { name: 'Knowledge entry 1', exact: true })
      .getByRole('textbox', { name: 'Title', exact: true });
    const hint = await describedBy(title);
    await title.fill('');
    const answer = page.waitForResponse(
      (response) => response.request().method() === 'PUT' && response.url().endsWith('/brand'),
      { timeout: WAIT_MS },
    );
    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    const response = await answer;
    expect(response.status()).toBe(400);
    const { errors } = (await response.json()) as { errors: { field: string; message: string }[] };
    const rejected = errors.find((error) => error.field === 'knowledge[0].title');
    expect(rejected, JSON.stringify(errors)).toBeDefined();
    await expect.poll(() => title.getAttribute('aria-invalid'), { timeout: WAIT_MS }).toBe('true');
    // The API's message for knowledge[0].title, under the field it names.
    expect((await describedBy(title)).replace(hint, '').trim().toLowerCase()).toBe(
      rejected?.message.toLowerCase(),
    );
    await page.getByRole('alert').first().waitFor({ timeout: WAIT_MS });
    expect(await page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(0);
    expect(await getBrand(f.testApp.deps, f.workspaceId)).toEqual(before);
    await expectNoPageProblems(session, 'Brand (API field error)');
  });

  it('previews the read operation response of unsaved edits as they are typed', async () => {
    const { f, session, page, name } = await openBrandPage();
    const region = page.getByRole('region', { name: 'Preview', exact: true });
    await region.getByRole('heading', { level: 2, name: 'Preview', exact: true }).waitFor();
    const shown = await preview(page);
    expect(shown.workspace_id).toBe(f.workspaceId);
    expect(shown.name).toBe(await name.inputValue());

    await name.fill('Acme Coffee (draft name)');
    await page.getByRole('textbox', { name: 'Primary color (hex)', exact: true }).fill('#112233');
    await expect
      .poll(() => preview(page).then((body) => body.name), { timeout: WAIT_MS })
      .toBe('Acme Coffee (draft name)');
    expect(((await preview(page)).colors as { primary: string }).primary.toUpperCase()).toBe('#112233');
    // Nothing was saved by typing.
    expect((await getBrand(f.testApp.deps, f.workspaceId)).name).not.toBe('Acme Coffee (draft name)');
    await expectNoPageProblems(session, 'Brand (preview)');
  });

  it('keeps a value the service would refuse out of the preview, and names the field above the tabs as the service would', async () => {
    const { f, session, page } = await openBrandPage();
    const { primary } = (await getBrand(f.testApp.deps, f.workspaceId)).colors;
    const region = page.getByRole('region', { name: 'Preview', exact: true });
    const panelText = async (format: string) => {
      await region.getByRole('tab', { name: new RegExp(`^${format}`) }).click();
      return region.getByLabel(`${format} response preview`, { exact: true }).innerText();
    };
    const voice = page.getByRole('textbox', { name: 'Voice', exact: true });
    await voice.fill('Typed before the color.');
    await page.getByRole('textbox', { name: 'Primary color (hex)', exact: true }).fill('#ABCDE');

    const refused = region.getByText('The service would refuse this brand:', { exact: true });
    await refused.waitFor({ timeout: WAIT_MS });
    expect(await region.getByRole('listitem').allInnerTexts()).toEqual([
      'colors.primary must be a #RRGGBB color',
    ]);
    await region.getByText('the tabs show your last edit it would accept', { exact: false }).waitFor();
    for (const format of ['JSON', 'Markdown', 'Design tokens']) {
      const text = await panelText(format);
      expect(text, format).not.toContain('#ABCDE');
      expect(text, format).toContain(primary ?? '');
    }
    expect(await panelText('Markdown')).toContain('Typed before the color.');
    await screenshot(page, 'brand-preview-refused', { fullPage: false });

    // Fixed, the preview follows the form again and the warning is gone.
    await page.getByRole('textbox', { name: 'Primary color (hex)', exact: true }).fill('#2E7D32');
    await refused.waitFor({ state: 'hidden', timeout: WAIT_MS });
    expect(await panelText('Design tokens')).toContain('"$value": "#2E7D32"');
    await expectNoPageProblems(session, 'Brand (preview of a refused value)');
  });

  it('previews the read operation as JSON, Markdown and design tokens in tabs, by mouse and arrow keys', async () => {
    const { session, page } = await openBrandPage();
    const tablist = page.getByRole('tablist', { name: 'Preview format', exact: true });
    const tab = (name: string) => tablist.getByRole('tab', { name: new RegExp(`^${name}`) });
    expect((await tablist.getByRole('tab').allInnerTexts()).map((text) => text.split('\n')[0])).toEqual(
      FORMAT_TABS,
    );
    expect(await tab('JSON').getAttribute('aria-selected')).toBe('true');

    await tab('Markdown').click();
    const markdown = page.getByRole('tabpanel', { name: /^Markdown/ });
    await markdown.waitFor();
    expect(await markdown.getByLabel('Markdown response preview', { exact: true }).innerText()).toMatch(
      /^# Acme Coffee.*\n[\s\S]*\n## Voice\n/,
    );
    expect(await page.getByRole('tabpanel', { name: /^JSON/ }).isVisible()).toBe(false);

    // The keyboard: one Tab stop on the selected tab; arrows move and wrap, and select as they go.
    await tab('Markdown').focus();
    await page.keyboard.press('ArrowRight');
    expect(await isFocused(tab('Design tokens'))).toBe(true);
    const tokens = page.getByRole('tabpanel', { name: /^Design tokens/ });
    await tokens.waitFor();
    expect(
      JSON.parse(await tokens.getByLabel('Design tokens response preview', { exact: true }).innerText()),
    ).toMatchObject({ color: { $type: 'color' } });
    await page.keyboard.press('ArrowRight');
    expect(await isFocused(tab('JSON'))).toBe(true);
    expect(await tab('JSON').getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('ArrowLeft');
    expect(await tab('Design tokens').getAttribute('aria-selected')).toBe('true');
    expect(
      await tablist
        .getByRole('tab')
        .evaluateAll((tabs) => tabs.map((t) => (t as DomElement).getAttribute('tabindex'))),
    ).toEqual(['-1', '-1', '0']);
    await expectNoPageProblems(session, 'Brand (preview tabs)');
  });

  it('counts the o200k tokens of each format as the read operation returns it, and counts again as the voice is edited', async () => {
    const { f, session, page } = await openBrandPage();
    // The tokenizer is a chunk of its own: only the brand page fetches it.
    await expect
      .poll(() => tokenCounts(page), { timeout: WAIT_MS })
      .toEqual([expect.any(Number), expect.any(Number), expect.any(Number)]);
    expect(await fetchedResources(page, 'o200k')).toHaveLength(1);
    const brand = await getBrand(f.testApp.deps, f.workspaceId);
    const served = BRAND_FORMATS.map((format) =>
      countTokens(renderBrandView(brand, brandView({ format })).text),
    );
    expect(await tokenCounts(page)).toEqual(served);
    await page.getByText('counted with o200k', { exact: false }).waitFor();

    const voice = page.getByRole('textbox', { name: 'Voice', exact: true });
    await voice.fill(`${await voice.inputValue()} Say where the beans come from, and who roasted them.`);
    await expect.poll(() => tokenCounts(page), { timeout: WAIT_MS }).not.toEqual(served);
    const [json = 0, markdown = 0] = (await tokenCounts(page)) as number[];
    expect(json).toBeGreaterThan(served[0] ?? 0);
    expect(markdown).toBeGreaterThan(served[1] ?? 0);
    await page.getByRole('tab', { name: /^Markdown/ }).click();
    expect(await page.getByLabel('Markdown response preview', { exact: true }).innerText()).toContain(
      'who roasted them.',
    );
    await screenshot(page, 'brand-preview-1280', { fullPage: false });
    await expectNoPageProblems(session, 'Brand (token counts)');
  });

  for (const viewport of [
    { width: 390, height: 844 },
    { width: 1366, height: 768 },
  ])
    it(`fits the preview's tabs into ${String(viewport.width)} px`, async () => {
      const { session, page } = await openBrandPage();
      await page.setViewportSize(viewport);
      await page.getByRole('tab', { name: /^Markdown/ }).click();
      await page.getByRole('heading', { level: 2, name: 'Preview', exact: true }).scrollIntoViewIfNeeded();
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `brand-preview-${String(viewport.width)}`, { fullPage: false });
      await expectNoPageProblems(session, `Brand (preview at ${String(viewport.width)} px)`);
    });
  /** Two tabs of the owner's Brand page (one browser, one session), both loaded with the brand as it is now. */
  async function openTwoTabs() {
    const first = await openBrandPage();
    const page = await first.session.context.newPage();
    const second = { page, session: { ...first.session, page, problems: new PageProblems(page) } };
    await page.goto('/');
    await navigate(page, 'Brand');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).not.toBe('');
    return { f: first.f, first, second };
  }

  /** The alert a save refused with 412 shows, found by its Reload button. */
  function conflictAlert(page: Page): Locator {
    return page.getByRole('alert').filter({ has: page.getByRole('button', { name: 'Reload', exact: true }) });
  }

  async function saveBrand(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
  }

  it('keeps a second tab from overwriting the first: its save names the sections that differ, in view and focused, and Reload shows the first tab’s change', async () => {
    const { f, first, second } = await openTwoTabs();
    const original = await getBrand(f.testApp.deps, f.workspaceId);

    await first.page.getByRole('textbox', { name: 'Voice', exact: true }).fill('Said in the first tab.');
    await saveBrand(first.page);
    await first.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    const afterFirst = await getBrand(f.testApp.deps, f.workspaceId);
    expect(afterFirst.version).toBe(original.version + 1);

    const description = second.page.getByRole('textbox', { name: 'Description', exact: true });
    await description.fill('Written in the second tab.');
    await saveBrand(second.page);

    const alert = conflictAlert(second.page);
    await alert.waitFor({ timeout: WAIT_MS });
    expect(await alert.innerText()).toMatch(/someone else saved the brand/i);
    // The sections where the saved brand and this tab differ: the first tab's Voice, this tab's Basics.
    const sections = alert.getByRole('listitem');
    await expect.poll(() => sections.allInnerTexts(), { timeout: WAIT_MS }).toEqual(['Basics', 'Voice']);
    expect(await alert.innerText()).toContain(`version ${String(afterFirst.version)}`);
    await expect.poll(() => whereInWindow(second.page, alert), { timeout: WAIT_MS }).toBe('in view');
    expect(await isFocused(alert), 'focus moves to the alert').toBe(true);
    expect(await getBrand(f.testApp.deps, f.workspaceId), 'nothing was overwritten').toEqual(afterFirst);
    expect(await second.page.getByRole('status').filter({ hasText: 'Saved' }).count(), 'no "Saved"').toBe(0);

    await alert.getByRole('button', { name: 'Reload', exact: true }).click();
    const voice = second.page.getByRole('textbox', { name: 'Voice', exact: true });
    await expect.poll(() => voice.inputValue(), { timeout: WAIT_MS }).toBe('Said in the first tab.');
    expect(await description.inputValue(), 'the second tab’s edit is discarded').toBe(original.description);
    await alert.waitFor({ state: 'hidden' });
    await second.page.getByText(`Version ${String(afterFirst.version)}, saved`, { exact: true }).waitFor();
    await expectNoPageProblems(first.session, 'Brand (first tab)');
    await expectNoPageProblems(second.session, 'Brand (second tab, conflict)');
  });

  it('lets a tab that got the conflict message keep editing: its next save replaces the other tab’s brand, knowingly', async () => {
    const { f, first, second } = await openTwoTabs();

    await first.page.getByRole('textbox', { name: 'Voice', exact: true }).fill('The first tab’s voice.');
    await saveBrand(first.page);
    await first.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    const afterFirst = await getBrand(f.testApp.deps, f.workspaceId);

    const voice = second.page.getByRole('textbox', { name: 'Voice', exact: true });
    await voice.fill('The second tab’s voice.');
    await saveBrand(second.page);
    const alert = conflictAlert(second.page);
    await alert.getByRole('button', { name: 'Keep editing', exact: true }).click();
    await alert.waitFor({ state: 'hidden' });
    expect(await voice.inputValue(), 'the edit stays').toBe('The second tab’s voice.');
    expect(await isFocused(second.page.getByRole('button', { name: 'Save brand', exact: true }))).toBe(true);

    await saveBrand(second.page);
    await second.page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    const stored = await getBrand(f.testApp.deps, f.workspaceId);
    expect(stored).toMatchObject({ voice: 'The second tab’s voice.', version: afterFirst.version + 1 });
    await expectNoPageProblems(second.session, 'Brand (kept editing after a conflict)');
  });
});
