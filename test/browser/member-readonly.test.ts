import { expect, it } from 'vitest';
import { listBrandKeys } from '../../src/services/keys/keys.js';
import {
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  fetchFromPage,
  navigate,
  rowOf,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

describeInBrowser('A member in the console: keys and brand are read-only', () => {
  const fixture = useBrowserFixture();

  it('shows a member the key table without Create key or Revoke buttons, and says who may change keys', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    await navigate(page, 'Agent Access');

    const table = page.getByRole('table', { name: 'Brand read keys', exact: true });
    // The page has loaded its keys before absences are judged.
    await rowOf(table, f.seededKeyName).waitFor({ timeout: WAIT_MS });
    await page
      .getByText('Only owners and admins can create and revoke keys.', { exact: true })
      .first()
      .waitFor();
    expect(await page.getByRole('button', { name: 'Create key', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Create API key', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Revoke / }).count()).toBe(0);
    await expectNoPageProblems(session, 'Agent Access (member)');
  });

  it('refuses a member who sends the create call anyway: 403 insufficient_role, and no key is made', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const before = await listBrandKeys(f.testApp.deps, f.workspaceId);

    const refused = await fetchFromPage(session.page, {
      method: 'POST',
      path: `/api/v1/workspaces/${f.workspaceId}/brand-keys`,
      body: { name: 'sneaky' },
      csrf: 'session',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('insufficient_role');

    const revoke = await fetchFromPage(session.page, {
      method: 'DELETE',
      path: `/api/v1/workspaces/${f.workspaceId}/brand-keys/${before[0]?.id ?? 'bk_missing'}`,
      csrf: 'session',
    });
    expect(revoke.status).toBe(403);
    expect(revoke.body.code).toBe('insufficient_role');
    expect(await listBrandKeys(f.testApp.deps, f.workspaceId)).toEqual(before);
  });

  it('tells a member that only owners and admins see the audit log, as calmly as Webhooks and Email, and asks the API nothing', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    const asked: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/audit-log')) asked.push(request.url());
    });
    await navigate(page, 'Audit log');
    const notice = page.getByText('Only owners and admins see the audit log.', { exact: true });
    await notice.waitFor();
    // The same calm callout as Webhooks and Email show a member: no alert, no permission name.
    expect(await notice.getAttribute('class')).toBe('callout');
    expect(await page.getByRole('alert').filter({ hasText: /\S/ }).count()).toBe(0);
    expect(await page.content()).not.toContain('audit.read');
    expect(await page.getByRole('table').count()).toBe(0);
    expect(asked).toEqual([]);
    await expectNoPageProblems(session, 'Audit log (member)');
  });

  it('shows a member the brand without "Save brand"', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    await navigate(page, 'Brand');
    await expectHeading(page, 'Brand');
    const name = page.getByRole('textbox', { name: 'Name', exact: true });
    await expect.poll(() => name.inputValue(), { timeout: WAIT_MS }).toBe('Acme Coffee');
    expect(await page.getByRole('button', { name: 'Save brand', exact: true }).count()).toBe(0);
    expect(await name.isEditable(), 'the brand name is read-only for a member').toBe(false);
    await expectNoPageProblems(session, 'Brand (member)');
  });
});
