import type { Page } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import { getBrand } from '../../src/services/brand.js';
import { createBrandKey } from '../../src/services/keys.js';
import {
  describeInBrowser,
  type DomElement,
  type DomWindow,
  expectNoPageProblems,
  navigate,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/** The field's error message, as aria-describedby points to it ("" when it points nowhere). */
function describedBy(page: Page, label: string): Promise<string> {
  return page.getByLabel(label, { exact: true }).evaluate((field: unknown) => {
    const { document } = globalThis as unknown as DomWindow;
    const ids = ((field as DomElement).getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
  });
}

function preview(page: Page): Promise<Record<string, unknown>> {
  return page
    .getByLabel('Read operation response preview', { exact: true })
    .innerText()
    .then((text) => JSON.parse(text) as Record<string, unknown>);
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

  it('flags an invalid hex color in the form as it is typed, and saves nothing with it', async () => {
    const { f, session, page } = await openBrandPage();
    const before = await getBrand(f.testApp.deps, f.workspaceId);
    const writes: string[] = [];
    page.on('request', (request) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${request.url()}`);
    });

    const primary = page.getByRole('textbox', { name: 'Primary color (hex)', exact: true });
    const hint = await describedBy(page, 'Primary color (hex)');
    await primary.fill('#12345G');
    // Client-side: the field is invalid before anything is sent.
    await expect.poll(() => primary.getAttribute('aria-invalid'), { timeout: WAIT_MS }).toBe('true');
    // aria-describedby now also points at an error message (beside any hint it named before).
    expect((await describedBy(page, 'Primary color (hex)')).replace(hint, '').trim()).not.toBe('');
    expect(writes, 'typing sent nothing').toEqual([]);

    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor({ timeout: WAIT_MS });
    expect(await primary.getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('status').filter({ hasText: 'Saved' }).count()).toBe(0);
    expect(await getBrand(f.testApp.deps, f.workspaceId)).toEqual(before);
    await expectNoPageProblems(session, 'Brand (invalid hex)');
  });

  it('shows a field error of the API next to its field and saves nothing', async () => {
    const { f, session, page } = await openBrandPage();
    const before = await getBrand(f.testApp.deps, f.workspaceId);

    // The API accepts only absolute https URLs for social profiles (social.instagram).
    const instagram = page.getByRole('textbox', { name: 'Instagram URL', exact: true });
    const hint = await describedBy(page, 'Instagram URL');
    await instagram.fill('http://instagram.com/acmecoffee.example');
    const answer = page.waitForResponse(
      (response) => response.request().method() === 'PUT' && response.url().endsWith('/brand'),
      { timeout: WAIT_MS },
    );
    await page.getByRole('button', { name: 'Save brand', exact: true }).click();
    const response = await answer;
    expect(response.status()).toBe(400);
    expect(((await response.json()) as { errors: { field: string }[] }).errors).toContainEqual(
      expect.objectContaining({ field: 'social.instagram' }),
    );
    await expect.poll(() => instagram.getAttribute('aria-invalid'), { timeout: WAIT_MS }).toBe('true');
    // The API's message for social.instagram, under the field it names.
    expect((await describedBy(page, 'Instagram URL')).replace(hint, '')).toMatch(/https/);
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
});
