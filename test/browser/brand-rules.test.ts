import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { getBrand } from '../../src/services/brand/brand.js';
import {
  CONSOLE_VIEWPORTS,
  describeInBrowser,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  navigate,
  pageWidth,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/*
 * The Rules section of the brand editor (a form per kind) and the WCAG 2.2 contrast report of the brand's
 * colors (docs/brand-check.md "In the console").
 */
describeInBrowser('Brand rules and the contrast report in the console', () => {
  const fixture = useBrowserFixture();

  async function openBrandPage() {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Brand');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).not.toBe('');
    return { f, session, page };
  }

  /** The rules section, and its rule cards by their (hidden) legends "Rule n". */
  const rules = (page: Page) => page.getByRole('region', { name: 'Rules', exact: true });
  const rule = (page: Page, n: number) =>
    rules(page).getByRole('group', { name: `Rule ${String(n)}`, exact: true });

  it('adds a rule of each kind with its own form, saves them, and reads them back after a reload', async () => {
    const { f, session, page } = await openBrandPage();
    const existing = (await getBrand(f.testApp.deps, f.workspaceId)).rules.length;
    const add = rules(page).getByRole('button', { name: 'Add rule', exact: true });
    const n = (offset: number) => existing + offset;

    await add.click();
    await rule(page, n(1))
      .getByRole('textbox', { name: 'Word or phrase never to use', exact: true })
      .fill('cheap');
    await expect
      .poll(() => rule(page, n(1)).getByText('Never say "cheap".', { exact: true }).count())
      .toBe(1);

    await add.click();
    await rule(page, n(2))
      .getByRole('combobox', { name: 'Kind', exact: true })
      .selectOption('preferred_term');
    await rule(page, n(2)).getByRole('textbox', { name: 'Say', exact: true }).fill('coffee lovers');
    await rule(page, n(2))
      .getByRole('textbox', { name: 'Instead of', exact: true })
      .fill('customers\nconsumers');
    await rule(page, n(2)).getByRole('combobox', { name: 'Severity', exact: true }).selectOption('warning');
    await rule(page, n(2))
      .getByRole('textbox', { name: 'Message', exact: true })
      .fill('We talk to people, not at them.');

    await add.click();
    await rule(page, n(3))
      .getByRole('combobox', { name: 'Kind', exact: true })
      .selectOption('required_phrase');
    await rule(page, n(3))
      .getByRole('textbox', { name: 'Phrase the copy must contain', exact: true })
      .fill('Roasted in Portland');

    await add.click();
    await rule(page, n(4)).getByRole('combobox', { name: 'Kind', exact: true }).selectOption('max_emoji');
    const count = rule(page, n(4)).getByRole('textbox', { name: 'At most', exact: true });
    await count.fill('one');
    // Checked as typed, as the other sections are.
    await rule(page, n(4)).getByText('Use a whole number, 0 or more.', { exact: true }).waitFor();
    await count.fill('1');

    await add.click();
    await rule(page, n(5))
      .getByRole('combobox', { name: 'Kind', exact: true })
      .selectOption('max_exclamations');
    await rule(page, n(5)).getByRole('textbox', { name: 'At most', exact: true }).fill('2');
    await add.click();
    await rule(page, n(6)).getByRole('combobox', { name: 'Kind', exact: true }).selectOption('palette_only');
    await add.click();
    await rule(page, n(7)).getByRole('combobox', { name: 'Kind', exact: true }).selectOption('fonts_only');
    await rule(page, n(2)).scrollIntoViewIfNeeded();
    await screenshot(page, 'brand-rules-form-1280', { fullPage: false });

    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    const saved = (await getBrand(f.testApp.deps, f.workspaceId)).rules.slice(existing);
    expect(saved.map(({ id, ...rest }) => ({ id: id.slice(0, 3), ...rest }))).toEqual([
      { id: 'rl_', kind: 'banned_term', value: 'cheap', message: '', severity: 'error' },
      {
        id: 'rl_',
        kind: 'preferred_term',
        value: { use: 'coffee lovers', instead_of: ['customers', 'consumers'] },
        message: 'We talk to people, not at them.',
        severity: 'warning',
      },
      { id: 'rl_', kind: 'required_phrase', value: 'Roasted in Portland', message: '', severity: 'error' },
      { id: 'rl_', kind: 'max_emoji', value: 1, message: '', severity: 'error' },
      { id: 'rl_', kind: 'max_exclamations', value: 2, message: '', severity: 'error' },
      { id: 'rl_', kind: 'palette_only', value: null, message: '', severity: 'error' },
      { id: 'rl_', kind: 'fonts_only', value: null, message: '', severity: 'error' },
    ]);

    await page.reload();
    await expect
      .poll(() => rule(page, n(2)).getByRole('textbox', { name: 'Say', exact: true }).inputValue(), {
        timeout: WAIT_MS,
      })
      .toBe('coffee lovers');
    expect(
      await rule(page, n(2)).getByRole('textbox', { name: 'Instead of', exact: true }).inputValue(),
    ).toBe('customers\nconsumers');
    expect(await rule(page, n(2)).getByRole('combobox', { name: 'Severity', exact: true }).inputValue()).toBe(
      'warning',
    );
    // What a model reads: the Markdown preview lists the rules as lines to follow.
    const preview = page.getByRole('region', { name: 'Preview', exact: true });
    await preview.getByRole('tab', { name: /^Markdown/ }).click();
    await preview
      .getByText('Say "coffee lovers" instead of "customers", "consumers"', { exact: false })
      .waitFor();
    await expectNoPageProblems(session, 'Brand (rules)');
  });

  it('reports the WCAG 2.2 contrast of the brand’s text and background pairs, live as a color changes', async () => {
    const { session, page } = await openBrandPage();
    const report = page.getByRole('table', { name: 'Contrast (WCAG 2.2)', exact: true });
    const row = (pair: string) =>
      report.getByRole('row').filter({ has: page.getByRole('rowheader', { name: pair, exact: true }) });
    // The demo brand: #1F1A17 on #FFFFFF.
    await expect.poll(() => row('Text on background').innerText()).toMatch(/17\.\d\d:1\s+Pass\s+Pass/);

    await page.getByRole('textbox', { name: 'Text color (hex)', exact: true }).fill('#777777');
    // 4.48:1: large text only.
    await expect.poll(() => row('Text on background').innerText()).toMatch(/4\.47:1\s+Fail\s+Pass/);
    await page.getByRole('textbox', { name: 'Text color (hex)', exact: true }).fill('#1F1A17');
    await expect.poll(() => row('Text on background').innerText()).toMatch(/Pass\s+Pass/);

    for (const viewport of CONSOLE_VIEWPORTS) {
      await page.setViewportSize(viewport);
      await page
        .getByRole('navigation', { name: 'Brand sections', exact: true })
        .getByRole('link', { name: 'Colors', exact: true })
        .click();
      expect(
        await pageWidth(page),
        `no sideways scrolling at ${String(viewport.width)} px`,
      ).toBeLessThanOrEqual(viewport.width);
      await report.scrollIntoViewIfNeeded();
      await screenshot(page, `brand-contrast-${String(viewport.width)}`, { fullPage: false });
      await page
        .getByRole('navigation', { name: 'Brand sections', exact: true })
        .getByRole('link', { name: 'Rules', exact: true })
        .click();
      await screenshot(page, `brand-rules-${String(viewport.width)}`, { fullPage: false });
      await expectNoSeriousAxeViolations(page, `Brand (rules and contrast) at ${String(viewport.width)} px`);
    }
    await expectNoPageProblems(session, 'Brand (contrast report)');
  });
});
