import type { Page, Request } from 'playwright-core';
import { beforeAll, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { getCampaign } from '../../src/services/campaigns/campaigns.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import {
  CONSOLE_VIEWPORTS,
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  pageWidth,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/*
 * The campaign editor's inline findings (docs/brand-check.md "In the console"): the copy is checked with
 * POST /functions/v1/brand-check as the user types, once typing pauses, and each finding shows below its field.
 */
const RULES = [
  { kind: 'banned_term', value: 'cheap', message: '', severity: 'error' },
  {
    kind: 'preferred_term',
    value: { use: 'coffee lovers', instead_of: ['customers'] },
    message: '',
    severity: 'warning',
  },
  { kind: 'max_exclamations', value: 1, message: '', severity: 'error' },
  { kind: 'required_phrase', value: 'Roasted in Portland', message: '', severity: 'error' },
  { kind: 'palette_only', value: null, message: '', severity: 'error' },
] as const;

describeInBrowser('On-brand findings in the campaign editor', () => {
  const fixture = useBrowserFixture();

  beforeAll(async () => {
    const f = fixture();
    await replaceBrand(
      f.testApp.deps,
      OPERATOR,
      f.workspaceId,
      parseBrandDocument({ ...DEMO_BRAND, rules: RULES }),
    );
  });

  async function openDraft() {
    const f = fixture();
    const session = await f.open(f.member);
    const { page } = session;
    const checks: Request[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/functions/v1/brand-check') checks.push(request);
    });
    await page.goto(`/w/${f.workspaceId}/campaigns/${f.campaignId}`);
    await expectHeading(page, f.campaignName);
    return { f, session, page, checks };
  }

  const findingsOf = (page: Page, field: string) =>
    page.getByRole('list', { name: `Brand check of ${field}`, exact: true });
  const status = (page: Page) => page.getByRole('status').filter({ hasText: /brand/i });

  it('shows each finding below its field with its excerpt and message as the user types, checking once typing pauses', async () => {
    const { f, session, page, checks } = await openDraft();
    // The saved draft lacks the required phrase: a finding of the whole draft.
    await findingsOf(page, 'the whole draft').getByText('Include "Roasted in Portland".').waitFor();
    await status(page).filter({ hasText: 'Does not pass the brand check' }).waitFor();
    const before = await getCampaign(f.testApp.deps, f.workspaceId, f.campaignId);

    const subject = page.getByRole('textbox', { name: 'Subject', exact: true });
    await subject.fill('');
    const loaded = checks.length;
    await subject.pressSequentially('Cheap beans for customers!!', { delay: 25 });
    const subjectFindings = findingsOf(page, 'Subject');
    await subjectFindings.getByText('Don\'t say "cheap".', { exact: false }).waitFor();
    expect(await subjectFindings.locator('mark').allInnerTexts()).toEqual(['Cheap', 'customers', '!']);
    await subjectFindings
      .getByText('Say "coffee lovers" instead of "customers".', { exact: false })
      .waitFor();
    await subjectFindings.getByText('At most 1 exclamation mark.', { exact: false }).waitFor();
    // Debounced: 27 keystrokes, 25 ms apart, are far fewer checks (the emptied field's, the pause's).
    expect(checks.length - loaded).toBeLessThanOrEqual(3);
    // Every check carries the console's CSRF token with its session cookie, and the copy as typed.
    const last = checks.at(-1);
    expect(last?.method()).toBe('POST');
    expect(await last?.headerValue('x-csrf-token')).toBeTruthy();
    expect(last?.postDataJSON()).toMatchObject({
      workspace_id: f.workspaceId,
      content: { subject: 'Cheap beans for customers!!' },
    });

    await page
      .getByRole('textbox', { name: 'Text body', exact: true })
      .fill('Roasted in Portland, every week.');
    await expect.poll(() => findingsOf(page, 'the whole draft').count(), { timeout: WAIT_MS }).toBe(0);
    await page
      .getByRole('textbox', { name: 'HTML body', exact: true })
      .fill('<p style="border: 1px solid #ff0000">Hello &amp; welcome</p>');
    const htmlFindings = findingsOf(page, 'HTML body');
    await htmlFindings.getByText('#ff0000', { exact: false }).first().waitFor();

    // Fixed: the findings go, and the status says it passes.
    await subject.fill('Fresh beans for coffee lovers!');
    await page.getByRole('textbox', { name: 'HTML body', exact: true }).fill('<p>Hello &amp; welcome</p>');
    await expect.poll(() => subjectFindings.count(), { timeout: WAIT_MS }).toBe(0);
    await status(page).filter({ hasText: 'On brand: no findings' }).waitFor();
    // Checking writes nothing: the draft is as it was until Save draft.
    expect(await getCampaign(f.testApp.deps, f.workspaceId, f.campaignId)).toEqual(before);
    await expectNoPageProblems(session, 'Campaign (brand check)');
  });

  it('fits the findings at 390, 1280 and 1366 px without sideways scrolling, and passes axe', async () => {
    const { session, page } = await openDraft();
    const subject = page.getByRole('textbox', { name: 'Subject', exact: true });
    await subject.fill(
      'Cheap beans for customers!! Hurry, a verylongwordthatcouldoverflowthefieldonaphonescreen',
    );
    await findingsOf(page, 'Subject').getByText('Don\'t say "cheap".', { exact: false }).waitFor();
    for (const viewport of CONSOLE_VIEWPORTS) {
      await page.setViewportSize(viewport);
      await subject.scrollIntoViewIfNeeded();
      expect(
        await pageWidth(page),
        `no sideways scrolling at ${String(viewport.width)} px`,
      ).toBeLessThanOrEqual(viewport.width);
      await screenshot(page, `campaign-check-${String(viewport.width)}`, { fullPage: false });
      await expectNoSeriousAxeViolations(page, `Campaign (brand check) at ${String(viewport.width)} px`);
    }
    await expectNoPageProblems(session, 'Campaign (brand check, widths)');
  });
});
