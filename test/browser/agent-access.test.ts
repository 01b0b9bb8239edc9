import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import {
  CONSOLE_VIEWPORTS,
  cellOf,
  DAY_MS,
  describeInBrowser,
  type DomStorage,
  type DomWindow,
  eventually,
  expectHeading,
  expectNoPageProblems,
  fetchedResources,
  INSTALL_DIR,
  navigate,
  pageWidth,
  rowOf,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/** The snippets' tabs, and the name of each one's Copy button. */
const SNIPPETS = [
  { tab: 'curl', copy: 'Copy curl commands' },
  { tab: 'Node fetch', copy: 'Copy Node snippet' },
  { tab: 'Python requests', copy: 'Copy Python snippet' },
  { tab: 'MCP client', copy: 'Copy MCP configuration' },
];

function clipboard(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as DomWindow).navigator.clipboard.readText());
}

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

  it('lists the apps connected with OAuth, each member’s own to them, and revokes one after asking', async () => {
    const f = fixture();
    const { store } = f.testApp;
    const member = await f.open(f.member);
    await navigate(member.page, 'Agent Access');
    const memberTable = member.page.getByRole('table', { name: 'Connected apps', exact: true });
    // None yet: the empty table says how to connect one, with this service's MCP address above it.
    await memberTable.getByText('No apps connected yet.', { exact: false }).waitFor({ timeout: WAIT_MS });
    expect((await member.page.getByTestId('mcp-url').innerText()).trim()).toBe(`${f.baseUrl}/mcp`);

    const now = new Date().toISOString();
    await store.oauth.saveClient({
      id: 'oc_browser_claude',
      name: 'Claude',
      redirectUris: ['https://claude.ai/api/mcp/auth_callback'],
      source: 'registered',
      metadata: {},
      createdAt: now,
      refreshedAt: now,
    });
    for (const account of [f.owner, f.member])
      await store.oauth.createGrant({
        id: `og_browser_${account.role}`,
        clientId: 'oc_browser_claude',
        userId: account.userId,
        workspaceId: f.workspaceId,
        scopes: account.role === 'owner' ? ['brand:read', 'campaigns:read'] : ['brand:read'],
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      });

    // A member sees the apps they connected, and may revoke them.
    await member.page.reload();
    await rowOf(memberTable, f.member.email).waitFor({ timeout: WAIT_MS });
    expect(await rowOf(memberTable, f.owner.email).count()).toBe(0);
    await member.page
      .getByRole('button', { name: `Revoke Claude for ${f.member.email}`, exact: true })
      .waitFor();
    await expectNoPageProblems(member, 'Agent Access (connected apps, member)');

    // An owner sees everyone's, with client, user, scopes, when connected and last used.
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Agent Access');
    const table = page.getByRole('table', { name: 'Connected apps', exact: true });
    await rowOf(table, f.owner.email).waitFor({ timeout: WAIT_MS });
    const headers = (await table.getByRole('columnheader').allInnerTexts()).map((text) => text.trim());
    expect(headers.slice(0, 5)).toEqual(['App', 'User', 'Scopes', 'Connected', 'Last used']);
    expect((await (await cellOf(table, f.owner.email, 'App')).innerText()).trim()).toBe('Claude');
    expect((await (await cellOf(table, f.owner.email, 'Scopes')).innerText()).trim()).toBe(
      'Read the brand, Read campaign drafts',
    );
    expect((await (await cellOf(table, f.owner.email, 'Last used')).innerText()).trim()).toBe('Never');
    await rowOf(table, f.member.email).waitFor();

    await page.getByRole('button', { name: `Revoke Claude for ${f.owner.email}`, exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke Claude?', exact: true });
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).waitFor();
    await confirm.getByRole('button', { name: 'Revoke access', exact: true }).click();
    await confirm.waitFor({ state: 'hidden' });
    await rowOf(table, f.owner.email).waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: 'Claude revoked' }).waitFor();
    expect((await store.oauth.getGrant('og_browser_owner'))?.revokedAt).not.toBeNull();
    expect((await store.oauth.getGrant('og_browser_member'))?.revokedAt).toBeNull();
    await screenshot(page, 'agent-access-connected-apps');
    await expectNoPageProblems(session, 'Agent Access (connected apps, owner)');
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

  it('offers curl, Node, Python and MCP snippets for this service and workspace, each copied as shown', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page, context } = session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.baseUrl });
    await navigate(page, 'Agent Access');
    const tablist = page.getByRole('tablist', { name: 'Snippets', exact: true });
    expect(await tablist.getByRole('tab').allInnerTexts()).toEqual(SNIPPETS.map((snippet) => snippet.tab));

    const shown: Record<string, string> = {};
    for (const { tab, copy } of SNIPPETS) {
      await tablist.getByRole('tab', { name: tab, exact: true }).click();
      const panel = page.getByRole('tabpanel', { name: tab, exact: true });
      const text = await panel.getByLabel(`${tab} snippet`, { exact: true }).innerText();
      shown[tab] = text;
      await panel.getByRole('button', { name: copy, exact: true }).click();
      await eventually(() => clipboard(page), text, `${tab}: the clipboard holds the snippet shown`);
    }
    for (const tab of ['curl', 'Node fetch', 'Python requests']) {
      expect(shown[tab]).toContain(`${f.baseUrl}/functions/v1/brand-agent`);
      expect(shown[tab]).toContain(f.workspaceId);
      expect(shown[tab]).toContain('BRAND_READ_KEY');
      expect(shown[tab]).toMatch(/"?format"?: ?['"]markdown['"]/);
    }

    // The MCP block names this installation's own CLI, the service and the workspace; the token is to create.
    const mcp = JSON.parse(shown['MCP client'] ?? '') as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    const server = mcp.mcpServers['brand-context'];
    expect(server?.command).toBe('node');
    expect(server?.args).toEqual([join(INSTALL_DIR, 'dist', 'cli', 'main.js'), 'mcp']);
    expect(server?.env).toMatchObject({
      BRAND_CONTEXT_URL: f.baseUrl,
      BRAND_CONTEXT_WORKSPACE_ID: f.workspaceId,
    });
    expect(server?.env.BRAND_CONTEXT_ACCESS_TOKEN).toContain('personal access token');
    await page
      .getByRole('tabpanel', { name: 'MCP client', exact: true })
      .getByRole('link', { name: 'create one under Access tokens', exact: true })
      .click();
    await expectHeading(page, 'Personal access tokens');
    await expectNoPageProblems(session, 'Agent Access (snippets)');
  });

  it('gives curl and Node snippets that print the brand when run as copied, with a key from the environment', async () => {
    const f = fixture();
    const { key } = await createBrandKey(f.testApp.deps, OPERATOR, {
      workspaceId: f.workspaceId,
      name: 'snippets',
    });
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Agent Access');
    const env = { PATH: process.env.PATH, BRAND_READ_KEY: key };
    const run = promisify(execFile);

    const curl = await page.getByLabel('curl snippet', { exact: true }).innerText();
    const { stdout } = await run('sh', ['-c', curl], { env });
    // The JSON on a line of its own, then the Markdown from its first line.
    const [json = '', ...markdown] = stdout.split('\n');
    expect((JSON.parse(json) as { name: string }).name).toBe('Acme Coffee');
    expect(markdown.join('\n')).toMatch(/^# Acme Coffee\n[\s\S]*## Voice\n/);

    await page.getByRole('tab', { name: 'Node fetch', exact: true }).click();
    const node = await page.getByLabel('Node fetch snippet', { exact: true }).innerText();
    const printed = await run(process.execPath, ['--input-type=module', '-e', node], { env });
    expect(printed.stdout).toMatch(/^# Acme Coffee\n[\s\S]*## Voice\n/);
    await expectNoPageProblems(session, 'Agent Access (curl and Node snippets)');
  });

  it('says "Copied" on the copy button itself at 1366×768, and announces it, then offers to copy again', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page, context } = session;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: f.baseUrl });
    await page.setViewportSize({ width: 1366, height: 768 });
    await navigate(page, 'Agent Access');
    await page.getByRole('tab', { name: 'Node fetch', exact: true }).click();
    const panel = page.getByRole('tabpanel', { name: 'Node fetch', exact: true });
    const copy = panel.getByRole('button', { name: 'Copy Node snippet', exact: true });
    await copy.scrollIntoViewIfNeeded();
    const width = (await copy.boundingBox())?.width;
    await copy.click();

    const copied = panel.getByRole('button', { name: 'Copied', exact: true });
    await copied.waitFor({ timeout: WAIT_MS });
    const box = await copied.boundingBox();
    expect(box !== null && box.y >= 0 && box.y + box.height <= 768, 'the button is in the window').toBe(true);
    expect(box?.width, 'the button keeps its width').toBe(width);
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    await screenshot(page, 'agent-access-copied-1366', { fullPage: false });
    await copy.waitFor({ timeout: WAIT_MS });
    expect(await clipboard(page)).toBe(
      await panel.getByLabel('Node fetch snippet', { exact: true }).innerText(),
    );
    await expectNoPageProblems(session, 'Agent Access (copied)');
  });

  for (const viewport of CONSOLE_VIEWPORTS)
    it(`fits the snippets, the MCP block too, into ${String(viewport.width)} px`, async () => {
      const f = fixture();
      const session = await f.open(f.owner);
      const { page } = session;
      await page.setViewportSize(viewport);
      // Loaded straight, not by way of the brand page that the console opens on.
      await page.goto(`/w/${f.workspaceId}/settings/agent-access`);
      await expectHeading(page, 'Agent Access');
      await page.getByRole('tab', { name: 'MCP client', exact: true }).click();
      const block = page.getByLabel('MCP client snippet', { exact: true });
      await block.scrollIntoViewIfNeeded();
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `agent-access-snippets-${String(viewport.width)}`, { fullPage: false });
      // The tokenizer belongs to the brand page: no other page fetches it.
      expect(await fetchedResources(page, 'o200k')).toEqual([]);
      await expectNoPageProblems(session, `Agent Access (snippets at ${String(viewport.width)} px)`);
    });
});
