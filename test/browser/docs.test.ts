import { expect, it } from 'vitest';
import {
  describeInBrowser,
  eventually,
  expectNoPageProblems,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; tags: string[] }>>;
}

describeInBrowser('The API reference at /docs', () => {
  const fixture = useBrowserFixture();

  it('renders every operation of /openapi.json, and an operation’s problem responses, without a page error', async () => {
    const f = fixture();
    const document = (
      await f.testApp.app.inject({ method: 'GET', url: '/openapi.json' })
    ).json<OpenApiDocument>();
    const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
    const session = await f.open();
    const { page } = session;

    const response = await page.goto('/docs');
    expect(response?.status()).toBe(200);
    await eventually(() => page.locator('.opblock').count(), operations.length, 'operations shown');
    // displayOperationId: each operation shows the name a generated client gives it.
    const shownIds = await page.locator('.opblock-summary-operation-id').allInnerTexts();
    expect(shownIds.map((id) => id.trim()).sort()).toEqual(operations.map((op) => op.operationId).sort());

    // Opening the read operation shows its problem responses, typed application/problem+json.
    await page.locator('#operations-brand_context-readBrandContext .opblock-summary-control').click();
    const responses = page.locator('#operations-brand_context-readBrandContext .responses-table');
    await responses.locator('tr.response[data-code="401"]').waitFor({ timeout: WAIT_MS });
    await expect.poll(() => responses.innerText(), { timeout: WAIT_MS }).toContain('missing_key');
    await expect
      .poll(() => responses.innerText(), { timeout: WAIT_MS })
      .toContain('application/problem+json');

    await screenshot(page, 'api-reference');
    await expectNoPageProblems(session, '/docs');
  });
});
