import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import { createBrandKey } from '../../src/services/keys.js';
import {
  cellOf,
  DAY_MS,
  describeInBrowser,
  type DomStorage,
  type DomWindow,
  eventually,
  expectHeading,
  expectNoPageProblems,
  navigate,
  rowOf,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/** Every value of every input and textarea, and both storages: where a shown-once key could linger. */
function everythingThePageHolds(page: Page): Promise<string> {
  return page.evaluate(() => {
    const window = globalThis as unknown as DomWindow;
    const dump = (storage: DomStorage) =>
      Array.from({ length: storage.length }, (_, index) => {
        const key = storage.key(index) ?? '';
        return `${key}=${storage.getItem(key) ?? ''}`;
      });
    return [
      ...Array.from(window.document.querySelectorAll('input, textarea'), (field) => field.value),
      ...dump(window.localStorage),
      ...dump(window.sessionStorage),
    ].join('\n');
  });
}

describeInBrowser('Agent Access in the console (Settings → Agent Access)', () => {
  const fixture = useBrowserFixture();

  it('creates a brand read key that is shown once, reads the brand, and stops working the moment it is revoked', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Agent Access');

    await page.getByRole('button', { name: 'Create key', exact: true }).click();
    const create = page.getByRole('dialog', { name: 'Create brand read key', exact: true });
    await create.getByRole('textbox', { name: 'Key name', exact: true }).fill('Newsletter pipeline');
    await create.getByRole('button', { name: 'Create', exact: true }).click();

    const shown = page.getByRole('dialog', { name: 'Your new brand read key', exact: true });
    const keyBox = shown.getByRole('textbox', { name: 'Brand read key', exact: true });
    await keyBox.waitFor();
    const key = await keyBox.inputValue();
    expect(key).toMatch(/^brk_[0-9A-Za-z]{36}$/);
    expect(await keyBox.getAttribute('readonly'), 'the key box is read-only').not.toBeNull();
    // The sentence may be followed by advice in the same paragraph.
    await shown.getByText('You will not see this key again.').waitFor();
    await shown.getByRole('button', { name: 'Copy key', exact: true }).waitFor();

    // The key works against the read operation, as an integrator would call it.
    const read = await f.readBrand(key);
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('Acme Coffee');
    expect(read.body.workspace_id).toBe(f.workspaceId);

    await shown.getByRole('button', { name: 'Done', exact: true }).click();
    await shown.waitFor({ state: 'hidden' });
    expect(await page.content(), 'the key is gone from the DOM after Done').not.toContain(key);
    expect(await everythingThePageHolds(page), 'the key is in no field nor storage').not.toContain(key);

    await page.reload();
    await expectHeading(page, 'Agent Access');
    const table = page.getByRole('table', { name: 'Brand read keys', exact: true });
    const keyCell = await cellOf(table, 'Newsletter pipeline', 'Key');
    await eventually(() => keyCell.innerText(), `${key.slice(0, 8)}…${key.slice(-4)}`);
    expect(await page.content()).not.toContain(key);
    expect(await everythingThePageHolds(page)).not.toContain(key);
    const status = await cellOf(table, 'Newsletter pipeline', 'Status');
    expect((await status.innerText()).trim()).toBe('Active');

    await table.getByRole('button', { name: 'Revoke Newsletter pipeline', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke Newsletter pipeline?', exact: true });
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).waitFor();
    await confirm.getByRole('button', { name: 'Revoke key', exact: true }).click();
    await confirm.waitFor({ state: 'hidden' });
    await eventually(async () => (await status.innerText()).trim(), 'Revoked');
    expect(
      await table.getByRole('button', { name: 'Revoke Newsletter pipeline', exact: true }).count(),
      'a revoked key has no Revoke button',
    ).toBe(0);

    const refused = await f.readBrand(key);
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('key_revoked');
    await expectNoPageProblems(session, 'Agent Access');
  });

  it('copies the workspace id with "Copy workspace ID"', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page, context } = session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.baseUrl });
    await navigate(page, 'Agent Access');

    const shownId = page.getByTestId('workspace-id');
    await eventually(async () => (await shownId.innerText()).trim(), f.workspaceId);
    await page.getByRole('button', { name: 'Copy workspace ID', exact: true }).click();
    await eventually(
      () => page.evaluate(() => (globalThis as unknown as DomWindow).navigator.clipboard.readText()),
      f.workspaceId,
    );
    await expectNoPageProblems(session, 'Agent Access (copy workspace id)');
  });

  it('shows how long each key has left, and warns of a key that expires within 14 days', async () => {
    const f = fixture();
    const { deps } = f.testApp;
    // A key made 80 days ago (by the service's clock) has 10 days left.
    f.syncClock(-80 * DAY_MS);
    await createBrandKey(deps, OPERATOR, { workspaceId: f.workspaceId, name: 'Old pipeline' });
    f.syncClock();
    await createBrandKey(deps, OPERATOR, { workspaceId: f.workspaceId, name: 'Fresh pipeline' });

    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Agent Access');
    const table = page.getByRole('table', { name: 'Brand read keys', exact: true });
    await rowOf(table, 'Fresh pipeline').waitFor({ timeout: WAIT_MS });

    const fresh = await (await cellOf(table, 'Fresh pipeline', 'Expires')).innerText();
    expect(fresh).toContain('expires in 90 days');
    expect(fresh).not.toContain('Expires soon');

    const old = await (await cellOf(table, 'Old pipeline', 'Expires')).innerText();
    expect(old).toContain('Expires soon');
    expect(old).toContain('expires in 10 days');

    expect((await (await cellOf(table, 'Old pipeline', 'Last used')).innerText()).trim()).toBe('Never');
    const headers = (await table.getByRole('columnheader').allInnerTexts()).map((text) => text.trim());
    // The contract's columns, in order (owners and admins also get a column for the Revoke buttons).
    expect(headers.slice(0, 7)).toEqual([
      'Name',
      'Key',
      'Status',
      'Created',
      'Expires',
      'Last used',
      'Created by',
    ]);
    await expectNoPageProblems(session, 'Agent Access (expiry)');
  });

  it('lets an admin create a workspace API key that is shown once and reaches the campaign API', async () => {
    const f = fixture();
    const session = await f.open(f.admin);
    const { page } = session;
    await navigate(page, 'Agent Access');
    await page.getByRole('button', { name: 'Create API key', exact: true }).click();
    const create = page.getByRole('dialog', { name: 'Create workspace API key', exact: true });
    await create.getByRole('textbox', { name: 'Key name', exact: true }).fill('CRM sync');
    await create.getByRole('button', { name: 'Create', exact: true }).click();
    const shown = page.getByRole('dialog', { name: 'Your new workspace API key', exact: true });
    const keyBox = shown.getByRole('textbox', { name: 'Workspace API key', exact: true });
    await keyBox.waitFor();
    const key = await keyBox.inputValue();
    expect(key).toMatch(/^wsk_[0-9A-Za-z]{36}$/);

    const campaigns = await fetch(`${f.baseUrl}/api/v1/workspaces/${f.workspaceId}/campaigns`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(campaigns.status).toBe(200);

    await shown.getByRole('button', { name: 'Done', exact: true }).click();
    await shown.waitFor({ state: 'hidden' });
    expect(await page.content()).not.toContain(key);
    expect(await everythingThePageHolds(page)).not.toContain(key);
    const table = page.getByRole('table', { name: 'Workspace API keys', exact: true });
    const keyCell = await cellOf(table, 'CRM sync', 'Key');
    await eventually(() => keyCell.innerText(), `${key.slice(0, 8)}…${key.slice(-4)}`);
    await expectNoPageProblems(session, 'Agent Access (workspace API key)');
  });

  it('shows the four rotation steps, in order', async () => {
    const f = fixture();
    const session = await f.open(f.admin);
    const { page } = session;
    await navigate(page, 'Agent Access');
    const heading = page.getByRole('heading', { level: 2, name: 'Rotating a key', exact: true });
    await heading.waitFor();
    const steps = heading.locator('xpath=following::ol[1]').getByRole('listitem');
    const texts = (await steps.allInnerTexts()).map((text) => text.toLowerCase());
    expect(texts).toHaveLength(4);
    expect(texts[0]).toContain('create');
    expect(texts[1]).toContain('environment variable');
    expect(texts[2]).toContain('test request');
    expect(texts[3]).toContain('revoke');
    await expectNoPageProblems(session, 'Agent Access (rotation)');
  });

  for (const kind of [
    {
      title: 'brand read keys',
      create: 'Create key',
      createDialog: 'Create brand read key',
      shownDialog: 'Your new brand read key',
      keyBox: 'Brand read key',
      table: 'Brand read keys',
    },
    {
      title: 'workspace API keys',
      create: 'Create API key',
      createDialog: 'Create workspace API key',
      shownDialog: 'Your new workspace API key',
      keyBox: 'Workspace API key',
      table: 'Workspace API keys',
    },
  ]) {
    it(`asks before a new key of the ${kind.title} is gone on Escape or a click outside its dialog`, async () => {
      const f = fixture();
      const session = await f.open(f.owner);
      const { page } = session;
      await navigate(page, 'Agent Access');
      await page.getByRole('button', { name: kind.create, exact: true }).click();
      const create = page.getByRole('dialog', { name: kind.createDialog, exact: true });
      const keyName = `Escape test (${kind.title})`;
      await create.getByRole('textbox', { name: 'Key name', exact: true }).fill(keyName);
      await create.getByRole('button', { name: 'Create', exact: true }).click();
      const shown = page.getByRole('dialog', { name: kind.shownDialog, exact: true });
      const keyBox = shown.getByRole('textbox', { name: kind.keyBox, exact: true });
      await keyBox.waitFor();
      const key = await keyBox.inputValue();

      // The browser's own question: each answer is taken from `answers`, in turn.
      const asked: string[] = [];
      const answers: boolean[] = [];
      page.on('dialog', (question) => {
        asked.push(question.message());
        void (answers.shift() === true ? question.accept() : question.dismiss());
      });
      const question = 'You will not see this key again. Close anyway?';

      // Escape, twice (Chromium skips the cancel event of a repeated Escape): asked each time, kept open.
      answers.push(false, false);
      await page.keyboard.press('Escape');
      await eventually(() => Promise.resolve(asked.length), 1);
      await page.keyboard.press('Escape');
      await eventually(() => Promise.resolve(asked.length), 2);
      expect(asked).toEqual([question, question]);
      expect(await shown.isVisible()).toBe(true);
      expect(await keyBox.inputValue()).toBe(key);

      // A click outside the dialog (on its backdrop), answered "close anyway".
      answers.push(true);
      await page.mouse.click(4, 4);
      await shown.waitFor({ state: 'hidden' });
      expect(asked).toEqual([question, question, question]);
      expect(await page.content()).not.toContain(key);
      expect(await everythingThePageHolds(page)).not.toContain(key);
      await rowOf(page.getByRole('table', { name: kind.table, exact: true }), keyName).waitFor();
      await expectNoPageProblems(session, `Agent Access (closing the new ${kind.title} dialog)`);
    });
  }
});
