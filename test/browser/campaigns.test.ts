import { expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { newCampaignSchema } from '../../src/contract/campaigns.js';
import {
  createCampaign,
  getCampaign,
  scheduleCampaign,
  updateCampaign,
} from '../../src/services/campaigns/campaigns.js';
import {
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  isFocused,
  navigate,
  rowOf,
  useBrowserFixture,
  WAIT_MS,
  whereInWindow,
} from './browser-harness.js';

describeInBrowser('Campaign drafts in the console', () => {
  const fixture = useBrowserFixture();

  it('creates a draft with "New draft", saves edits to it, and each save raises its version', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    await navigate(page, 'Campaigns', 'Campaign drafts');
    await page.getByRole('button', { name: 'New draft', exact: true }).click();

    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Spring subscription push');
    await page.getByRole('textbox', { name: 'Subject', exact: true }).fill('Fresh beans, every two weeks');
    await page.getByRole('button', { name: 'Save draft', exact: true }).click();
    await expectHeading(page, 'Spring subscription push');
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    const campaignId = /\/campaigns\/(cmp_[0-9A-Za-z]+)$/.exec(new URL(page.url()).pathname)?.[1] ?? '';
    expect(campaignId, page.url()).not.toBe('');
    expect((await getCampaign(f.testApp.deps, f.workspaceId, campaignId)).version).toBe(1);

    await page.getByRole('textbox', { name: 'Preheader', exact: true }).fill('Pause any time.');
    await page.getByRole('textbox', { name: 'Text body', exact: true }).fill('Hello from Portland.');
    await page.getByRole('button', { name: 'Save draft', exact: true }).click();
    await page.getByText('Version 2', { exact: true }).waitFor({ timeout: WAIT_MS });
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    const stored = await getCampaign(f.testApp.deps, f.workspaceId, campaignId);
    expect(stored).toMatchObject({
      name: 'Spring subscription push',
      subject: 'Fresh beans, every two weeks',
      preheader: 'Pause any time.',
      body_text: 'Hello from Portland.',
      status: 'draft',
      version: 2,
    });

    await navigate(page, 'Campaigns', 'Campaign drafts');
    await rowOf(
      page.getByRole('table', { name: 'Campaigns', exact: true }),
      'Spring subscription push',
    ).waitFor();
    await expectNoPageProblems(session, 'campaign drafts');
  });

  it('does not overwrite a change made elsewhere: a stale save shows an alert with "Reload" in view and focused, which loads the other version', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const { page } = session;
    await page.goto(`/w/${f.workspaceId}/campaigns/${f.campaignId}`);
    await expectHeading(page, f.campaignName);
    const subject = page.getByRole('textbox', { name: 'Subject', exact: true });
    await expect.poll(() => subject.inputValue(), { timeout: WAIT_MS }).not.toBe('');

    // Someone else (a script with the API) changes the draft after the page loaded it.
    const before = await getCampaign(f.testApp.deps, f.workspaceId, f.campaignId);
    await updateCampaign(
      f.testApp.deps,
      OPERATOR,
      { workspaceId: f.workspaceId, id: f.campaignId, ifMatch: undefined },
      { subject: 'Changed by the pipeline' },
    );

    await subject.fill('Changed in the console');
    await page.getByRole('button', { name: 'Save draft', exact: true }).click();
    const alert = page
      .getByRole('alert')
      .filter({ has: page.getByRole('button', { name: 'Reload', exact: true }) });
    await alert.waitFor({ timeout: WAIT_MS });
    expect(await alert.innerText()).toMatch(/someone else changed/i);
    // Where the user clicked Save draft, at the foot of a form taller than the window, and focused.
    await expect.poll(() => whereInWindow(page, alert), { timeout: WAIT_MS }).toBe('in view');
    expect(await isFocused(alert), 'focus moves to the alert').toBe(true);
    const stored = await getCampaign(f.testApp.deps, f.workspaceId, f.campaignId);
    expect(stored.subject, 'the other change was not overwritten').toBe('Changed by the pipeline');
    expect(stored.version).toBe(before.version + 1);

    await alert.getByRole('button', { name: 'Reload', exact: true }).click();
    await expect.poll(() => subject.inputValue(), { timeout: WAIT_MS }).toBe('Changed by the pipeline');
    await alert.waitFor({ state: 'hidden' });
    await expectNoPageProblems(session, 'campaign conflict');
  });

  it('shows a scheduled campaign read-only: no "Save draft", fields not editable', async () => {
    const f = fixture();
    const draft = await createCampaign(
      f.testApp.deps,
      OPERATOR,
      f.workspaceId,
      newCampaignSchema.parse({ name: 'Black Friday (scheduled)', subject: 'Nothing off, everything fresh' }),
    );
    await scheduleCampaign(f.testApp.deps, OPERATOR, {
      workspaceId: f.workspaceId,
      id: draft.id,
      ifMatch: undefined,
    });
    const session = await f.open(f.member);
    const { page } = session;
    await page.goto(`/w/${f.workspaceId}/campaigns/${draft.id}`);
    await expectHeading(page, 'Black Friday (scheduled)');
    const subject = page.getByRole('textbox', { name: 'Subject', exact: true });
    await expect.poll(() => subject.inputValue(), { timeout: WAIT_MS }).toBe('Nothing off, everything fresh');
    expect(await subject.isEditable()).toBe(false);
    expect(await page.getByRole('button', { name: 'Save draft', exact: true }).count()).toBe(0);
    await expectNoPageProblems(session, 'scheduled campaign');
  });

  it('asks before leaving a draft with unsaved edits, and no longer once they are saved', async () => {
    const f = fixture();
    const draft = await createCampaign(
      f.testApp.deps,
      OPERATOR,
      f.workspaceId,
      newCampaignSchema.parse({ name: 'Spring tasting notes', subject: 'Three new beans' }),
    );
    const session = await f.open(f.member);
    const { page } = session;
    await page.goto(`/w/${f.workspaceId}/campaigns/${draft.id}`);
    await expectHeading(page, 'Spring tasting notes');
    const subject = page.getByRole('textbox', { name: 'Subject', exact: true });
    await expect.poll(() => subject.inputValue(), { timeout: WAIT_MS }).toBe('Three new beans');
    const campaignsLink = page
      .getByRole('navigation', { name: 'Main', exact: true })
      .getByRole('link', { name: 'Campaigns', exact: true });
    const leave = page.getByRole('dialog', { name: 'Leave without saving?', exact: true });

    await subject.fill('Three new beans, roasted this week');
    await campaignsLink.click();
    await leave.getByRole('button', { name: 'Stay on this page', exact: true }).click();
    await leave.waitFor({ state: 'hidden' });
    await expectHeading(page, 'Spring tasting notes');
    expect(await subject.inputValue()).toBe('Three new beans, roasted this week');

    // Closing the tab: the browser asks (beforeunload).
    const question = page.waitForEvent('dialog');
    await page.close({ runBeforeUnload: true });
    const asked = await question;
    expect(asked.type()).toBe('beforeunload');
    await asked.dismiss();

    await page.getByRole('button', { name: 'Save draft', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved' }).waitFor({ timeout: WAIT_MS });
    await campaignsLink.click();
    await expectHeading(page, 'Campaign drafts');
    expect(await leave.count(), 'saved edits leave without asking').toBe(0);
    expect((await getCampaign(f.testApp.deps, f.workspaceId, draft.id)).subject).toBe(
      'Three new beans, roasted this week',
    );
    await expectNoPageProblems(session, 'campaign editor (unsaved edits)');
  });

  it('asks before leaving a new draft that was never saved, and leaves it unsaved on "Leave without saving"', async () => {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    await navigate(page, 'Campaigns', 'Campaign drafts');
    await page.getByRole('button', { name: 'New draft', exact: true }).click();
    await expectHeading(page, 'New draft');
    await page.getByRole('textbox', { name: 'Name', exact: true }).fill('Never saved');
    await page
      .getByRole('navigation', { name: 'Main', exact: true })
      .getByRole('link', { name: 'Campaigns', exact: true })
      .click();
    const leave = page.getByRole('dialog', { name: 'Leave without saving?', exact: true });
    await leave.getByRole('button', { name: 'Leave without saving', exact: true }).click();
    await expectHeading(page, 'Campaign drafts');
    expect(
      await rowOf(page.getByRole('table', { name: 'Campaigns', exact: true }), 'Never saved').count(),
    ).toBe(0);
    await expectNoPageProblems(session, 'new draft (unsaved)');
  });
});
