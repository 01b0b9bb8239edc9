import { expect, it } from 'vitest';
import { listMembers } from '../../src/services/accounts/members.js';
import {
  cellOf,
  containsFocus,
  describeInBrowser,
  type DomElement,
  type DomWindow,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  INSTALL_DIR,
  isFocused,
  navigate,
  rowOf,
  screenshot,
  type Session,
  signIn,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

const NAV_LINKS = [
  'Brand',
  'Campaigns',
  'Members',
  'Audit log',
  'Agent Access',
  'Webhooks',
  'Email',
  'Access tokens',
];

describeInBrowser('Every page of the console: title, accessibility, no errors', () => {
  const fixture = useBrowserFixture();

  /** The checks every page passes once it shows its content. */
  async function checkPage(session: Session, name: string): Promise<void> {
    await expectNoSeriousAxeViolations(session.page, name);
    await screenshot(session.page, name);
    await expectNoPageProblems(session, name);
  }

  it('passes axe on the Sign in page and signs the owner in from it', async () => {
    const f = fixture();
    const session = await f.open();
    const { page } = session;
    const response = await page.goto('/');
    expect(response?.status()).toBe(200);
    // Signed out, / leads to Sign in.
    await expectHeading(page, 'Sign in');
    expect(new URL(page.url()).pathname).toBe('/sign-in');
    await page.getByRole('textbox', { name: 'Email', exact: true }).waitFor();
    await page.getByLabel('Password', { exact: true }).waitFor();
    await checkPage(session, 'sign-in');

    await signIn(page, f.owner.email, f.owner.password);
    await page.goto('/');
    await expectHeading(page, 'Brand');
    expect(new URL(page.url()).pathname).toBe(`/w/${f.workspaceId}/brand`);
  });

  it('shows a wrong password as an alert on the Sign in page', async () => {
    const f = fixture();
    const session = await f.open();
    const { page } = session;
    await page.goto('/sign-in');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(f.owner.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: /\S/ }).first().waitFor({ timeout: WAIT_MS });
    await expectHeading(page, 'Sign in');
    await screenshot(page, 'sign-in-error');
    await expectNoPageProblems(session, 'Sign in (wrong password)');
  });

  it('shows every signed-in page with its title, the Main navigation and the workspace switcher, with no serious axe violation', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const nav = page.getByRole('navigation', { name: 'Main', exact: true });
    for (const link of NAV_LINKS) await nav.getByRole('link', { name: link, exact: true }).waitFor();
    const switcher = page.getByRole('combobox', { name: 'Workspace', exact: true });
    await switcher.waitFor();
    expect(await switcher.locator('option:checked').innerText()).toBe(f.workspaceName);

    await navigate(page, 'Brand');
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Name', exact: true }).inputValue(), { timeout: WAIT_MS })
      .toBe('Acme Coffee');
    await checkPage(session, 'brand');

    await navigate(page, 'Campaigns', 'Campaign drafts');
    const campaigns = page.getByRole('table', { name: 'Campaigns', exact: true });
    await rowOf(campaigns, f.campaignName).waitFor();
    await checkPage(session, 'campaigns');

    await campaigns.getByRole('link', { name: f.campaignName, exact: true }).click();
    await expectHeading(page, f.campaignName);
    expect(new URL(page.url()).pathname).toBe(`/w/${f.workspaceId}/campaigns/${f.campaignId}`);
    await expect
      .poll(() => page.getByRole('textbox', { name: 'Subject', exact: true }).inputValue(), {
        timeout: WAIT_MS,
      })
      .toBe('Our winter blend is back');
    await checkPage(session, 'campaign-editor');

    await navigate(page, 'Members');
    const members = page.getByRole('table', { name: 'Members', exact: true });
    for (const account of [f.owner, f.admin, f.member]) await rowOf(members, account.email).waitFor();
    await checkPage(session, 'members');

    await navigate(page, 'Audit log');
    const audit = page.getByRole('table', { name: 'Audit log', exact: true });
    await audit.getByRole('row').nth(1).waitFor();
    // A time among an event's details reads as every other time of the console does, not as ISO 8601.
    const keyCreated = await rowOf(audit, 'brand_key.created').first().innerText();
    expect(keyCreated).toMatch(/expires at: [A-Z][a-z]{2} \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M/);
    expect(keyCreated).not.toMatch(/\d{4}-\d{2}-\d{2}T\d{2}:/);
    await checkPage(session, 'audit-log');

    await navigate(page, 'Agent Access');
    await rowOf(page.getByRole('table', { name: 'Brand read keys', exact: true }), f.seededKeyName).waitFor();
    await checkPage(session, 'agent-access');

    await navigate(page, 'Webhooks');
    await page.getByRole('table', { name: 'Webhook endpoints', exact: true }).waitFor();
    await checkPage(session, 'webhooks');

    await navigate(page, 'Email');
    await page.getByRole('table', { name: 'Messages', exact: true }).waitFor();
    await checkPage(session, 'email');

    await navigate(page, 'Access tokens', 'Personal access tokens');
    await page.getByRole('table', { name: 'Access tokens', exact: true }).waitFor();
    await checkPage(session, 'access-tokens');
  });

  it('opens each page at its own address, also on a reload', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    const pages: [string, string][] = [
      [`/w/${f.workspaceId}/brand`, 'Brand'],
      [`/w/${f.workspaceId}/brand/history`, 'Brand history'],
      [`/w/${f.workspaceId}/brand/history/1`, 'Version 1'],
      [`/w/${f.workspaceId}/campaigns`, 'Campaign drafts'],
      [`/w/${f.workspaceId}/campaigns/${f.campaignId}`, f.campaignName],
      [`/w/${f.workspaceId}/members`, 'Members'],
      [`/w/${f.workspaceId}/audit-log`, 'Audit log'],
      [`/w/${f.workspaceId}/settings/agent-access`, 'Agent Access'],
      [`/w/${f.workspaceId}/settings/webhooks`, 'Webhooks'],
      [`/w/${f.workspaceId}/settings/email`, 'Email'],
      ['/account/tokens', 'Personal access tokens'],
    ];
    for (const [path, title] of pages) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      await expectHeading(page, title);
    }
    await expectNoPageProblems(session, 'direct addresses');
  });

  it('creates a personal access token shown once with a ready MCP client configuration, and revokes it', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Access tokens', 'Personal access tokens');
    await page.getByRole('textbox', { name: 'Token name', exact: true }).fill('Claude Desktop');
    await page.getByRole('spinbutton', { name: 'Expires in (days)', exact: true }).fill('30');
    await page.getByRole('button', { name: 'Create token', exact: true }).click();

    const tokenBox = page.getByRole('textbox', { name: 'Access token', exact: true });
    await tokenBox.waitFor();
    const token = await tokenBox.inputValue();
    expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(await tokenBox.getAttribute('readonly')).not.toBeNull();
    await page.getByRole('button', { name: 'Copy token', exact: true }).waitFor();
    const config = await page.getByLabel('MCP client configuration', { exact: true }).innerText();
    expect(config).toContain(token);
    expect(config).toContain(f.baseUrl);
    // The installation's own CLI, run by node, not a placeholder.
    const mcpServer = (
      JSON.parse(config) as { mcpServers: Record<string, { command: string; args: string[] }> }
    ).mcpServers['brand-context'];
    expect(mcpServer?.command).toBe('node');
    expect(mcpServer?.args).toEqual([`${INSTALL_DIR}/dist/cli/main.js`, 'mcp']);
    expect(config).not.toContain('/path/to/brand-context');
    await page.getByText('the machine that runs the service', { exact: false }).first().waitFor();

    const asToken = () =>
      fetch(`${f.baseUrl}/api/v1/workspaces`, { headers: { authorization: `Bearer ${token}` } });
    expect((await asToken()).status).toBe(200);

    await page.getByRole('button', { name: 'Done', exact: true }).click();
    await tokenBox.waitFor({ state: 'detached' });
    expect(await page.content()).not.toContain(token);
    const table = page.getByRole('table', { name: 'Access tokens', exact: true });
    await rowOf(table, 'Claude Desktop').waitFor();
    await table.getByRole('button', { name: 'Revoke Claude Desktop', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke Claude Desktop?', exact: true });
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).waitFor();
    await confirm.getByRole('button', { name: 'Revoke token', exact: true }).click();
    await confirm.waitFor({ state: 'hidden' });
    await expect
      .poll(async () => (await rowOf(table, 'Claude Desktop').innerText()).includes('Revoked'), {
        timeout: WAIT_MS,
      })
      .toBe(true);
    const refused = await asToken();
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe('token_revoked');
    await expectNoPageProblems(session, 'Access tokens');
  });

  it('adds a member with a role and removes them again on the Members page, which offers no Remove for the only owner', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Members');
    const table = page.getByRole('table', { name: 'Members', exact: true });
    await rowOf(table, f.member.email).waitFor();
    // The workspace's only owner cannot be removed (409 last_owner): the row says so instead of offering it.
    await rowOf(table, f.owner.email).getByText('Only owner', { exact: true }).waitFor();
    expect(await table.getByRole('button', { name: `Remove ${f.owner.email}`, exact: true }).count()).toBe(0);
    expect(await table.getByRole('button', { name: `Remove ${f.member.email}`, exact: true }).count()).toBe(
      1,
    );

    await page.getByRole('textbox', { name: 'Email', exact: true }).fill('new.hire@browser.example');
    await page.getByRole('combobox', { name: 'Role', exact: true }).selectOption('admin');
    await page.getByRole('button', { name: 'Add member', exact: true }).click();
    const added = rowOf(table, 'new.hire@browser.example');
    await added.waitFor();
    expect(
      (await (await cellOf(table, 'new.hire@browser.example', 'Role')).innerText()).toLowerCase(),
    ).toContain('admin');
    const members = await listMembers(f.testApp.deps, f.workspaceId);
    expect(members.find((member) => member.email === 'new.hire@browser.example')?.role).toBe('admin');

    await table.getByRole('button', { name: 'Remove new.hire@browser.example', exact: true }).click();
    const confirm = page.getByRole('dialog', { name: 'Remove new.hire@browser.example?', exact: true });
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).waitFor();
    await confirm.getByRole('button', { name: 'Remove member', exact: true }).click();
    await confirm.waitFor({ state: 'hidden' });
    await added.waitFor({ state: 'detached' });
    expect(
      (await listMembers(f.testApp.deps, f.workspaceId)).some(
        (member) => member.email === 'new.hire@browser.example',
      ),
    ).toBe(false);
    await expectNoPageProblems(session, 'Members');
  });

  it('reaches "Create key" with Tab, opens its dialog with Enter, closes it with Escape and gives focus back', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Agent Access');
    const createKey = page.getByRole('button', { name: 'Create key', exact: true });
    await createKey.waitFor();

    // Start from the top of the document, then Tab forward (bounded) until the button has focus.
    await page.evaluate(() => {
      (globalThis as unknown as DomWindow).document.activeElement?.blur?.();
    });
    let tabs = 0;
    while (!(await isFocused(createKey))) {
      expect(tabs, 'Tab presses to reach "Create key"').toBeLessThan(60);
      await page.keyboard.press('Tab');
      tabs++;
    }
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Create brand read key', exact: true });
    await dialog.waitFor();
    await dialog.getByRole('textbox', { name: 'Key name', exact: true }).waitFor();
    await expect.poll(() => containsFocus(dialog), { timeout: WAIT_MS }).toBe(true);
    await screenshot(page, 'agent-access-create-dialog');
    await expectNoSeriousAxeViolations(page, 'Create brand read key dialog');

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await expect.poll(() => isFocused(createKey), { timeout: WAIT_MS }).toBe(true);
    await expectNoPageProblems(session, 'keyboard on Agent Access');
  });

  it('adds a member with a temporary password, who then signs in with it', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await navigate(page, 'Members');
    const email = 'temporary.hire@browser.example';
    const temporary = 'a temporary password from the console';
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    const password = page.getByLabel('Temporary password', { exact: true });
    expect(await password.getAttribute('type')).toBe('password');
    // The note beside it: share it safely, and the member changes it.
    const note = await password.evaluate((field: unknown) => {
      const { document } = globalThis as unknown as DomWindow;
      const ids = ((field as DomElement).getAttribute('aria-describedby') ?? '').split(/\s+/);
      return ids.map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
    });
    expect(note).toMatch(/safely/);
    expect(note).toMatch(/change it/);
    await password.fill(temporary);
    await page.getByRole('button', { name: 'Add member', exact: true }).click();
    const table = page.getByRole('table', { name: 'Members', exact: true });
    await rowOf(table, email).waitFor();
    await page.getByRole('status').filter({ hasText: 'temporary password' }).waitFor();
    expect(await password.inputValue(), 'the password field is emptied').toBe('');
    expect(await page.content()).not.toContain(temporary);
    await screenshot(page, 'members-temporary-password');

    // The new member signs in with it, in a browser of their own.
    const newcomer = await f.open();
    await signIn(newcomer.page, email, temporary);
    await expectNoPageProblems(session, 'Members (temporary password)');
    await expectNoPageProblems(newcomer, 'sign-in with a temporary password');
  });
});
