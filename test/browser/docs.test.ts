import { expect, it } from 'vitest';
import {
  describeInBrowser,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  pageWidth,
  screenshot,
  useBrowserFixture,
} from './browser-harness.js';

type Operations = Record<string, Record<string, { operationId: string; tags: string[] }>>;

interface OpenApiDocument {
  paths: Operations;
  webhooks: Operations;
}

/** The widths the console is checked at: a phone, a laptop and a common desktop. */
const WIDTHS = [390, 1280, 1366] as const;

describeInBrowser('The API reference at /docs', () => {
  const fixture = useBrowserFixture();

  it('renders every operation of /openapi.json with its operationId, and an operation’s problem responses, without a page error', async () => {
    const f = fixture();
    const document = (
      await f.testApp.app.inject({ method: 'GET', url: '/openapi.json' })
    ).json<OpenApiDocument>();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const session = await f.open();
    const { page } = session;

    const response = await page.goto('/docs');
    expect(response?.status()).toBe(200);
    expect(await page.locator('article.operation').count()).toBe(operations.length);
    // Each operation shows the name a generated client gives it.
    const shownIds = await page.locator('article.operation .operation-id code').allInnerTexts();
    expect(shownIds.sort()).toEqual(operations.map((op) => op.operationId).sort());
    // And every event the service sends, from the document's webhooks.
    const events = Object.keys(document.webhooks);
    expect(await page.locator('article.webhook').count()).toBe(events.length);
    expect(await page.locator('article.webhook h3 .path').allInnerTexts()).toEqual(events);

    // The read operation lists its problem responses; opening one's body shows it is problem+json.
    const read = page.locator('#operation-readBrandContext');
    await expect.poll(() => read.locator('.responses').innerText()).toContain('missing_key');
    const unauthorized = read.locator('.responses dd').filter({ hasText: 'missing_key' });
    await unauthorized.getByText('Body', { exact: true }).click();
    await expect.poll(() => unauthorized.innerText()).toContain('application/problem+json');
    // Its JSON answer is the whole brand or some sections, and the dtcg one design tokens.
    const ok = read.locator('.responses dd').first();
    await ok.getByText('Body', { exact: true }).click();
    for (const name of ['BrandContext', 'BrandContextSections', 'BrandDesignTokens'])
      await expect.poll(() => ok.getByRole('link', { name, exact: true }).count()).toBe(1);
    await ok.getByRole('link', { name: 'BrandContextSections', exact: true }).click();
    await expect.poll(() => page.url()).toMatch(/\/docs#schema-BrandContextSections$/);

    await screenshot(page, 'api-reference', { fullPage: false });
    await expectNoPageProblems(session, '/docs');
  });

  it('passes axe at 390, 1280 and 1366 px, with every schema open, and never scrolls sideways', async () => {
    const session = await fixture().open();
    const { page } = session;
    await page.goto('/docs');
    // Axe checks what is shown: open every disclosure, as a reader going through the page would.
    await page.evaluate(() => {
      const { document } = globalThis as unknown as {
        document: { querySelectorAll(selector: string): Iterable<{ open: boolean }> };
      };
      for (const details of document.querySelectorAll('details')) details.open = true;
    });
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      expect(await pageWidth(page), `${String(width)} px`).toBeLessThanOrEqual(width);
      await expectNoSeriousAxeViolations(page, `/docs at ${String(width)} px`);
      if (width === 390) await screenshot(page, 'api-reference-390', { fullPage: false });
    }
    await expectNoPageProblems(session, '/docs');
    // Axe over the whole reference, every schema open, three times: ~16 s on a quiet machine, over a minute on
    // a loaded CI runner.
  }, 180_000);
});
