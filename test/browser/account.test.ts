import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { addMember } from '../../src/services/accounts/members.js';
import { findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { bounceEmailsTo, emailsTo, linkIn } from '#test/support/fixtures/account-email.js';
import {
  type BrowserFixture,
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  navigate,
  rowOf,
  screenshot,
  signIn,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

const CHOSEN = 'the password I chose in the browser';

/** The link of the newest account email to `email`, as its recipient would open it. */
async function lastLinkTo(f: BrowserFixture, email: string): Promise<string> {
  // A password reset's link is made after the page has its answer.
  await f.testApp.app.services.accountLinks.settled();
  return linkIn((await emailsTo({ ...f.testApp, database: f.database }, email)).at(-1)).url;
}

/** Fills a password chosen twice and submits it with `button`. */
async function choosePassword(page: Page, label: string, password: string, repeated: string, button: string) {
  await page.getByLabel(label, { exact: true }).fill(password);
  await page.getByLabel(`Repeat ${label.toLowerCase()}`, { exact: true }).fill(repeated);
  await page.getByRole('button', { name: button, exact: true }).click();
}

describeInBrowser('Account email in the console: invites and password resets', () => {
  const fixture = useBrowserFixture();

  it('invites a member from the Members page, resends the invite, and lets them choose a password and sign in', async () => {
    const f = fixture();
    const owner = await f.open(f.owner);
    await navigate(owner.page, 'Members');
    const email = 'new.colleague@browser.example';
    await owner.page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await owner.page.getByRole('button', { name: 'Add member', exact: true }).click();
    await owner.page
      .getByRole('status')
      .filter({ hasText: `${email} added as member: an invite to choose a password is on its way` })
      .waitFor({ timeout: WAIT_MS });
    const table = owner.page.getByRole('table', { name: 'Members', exact: true });
    await rowOf(table, email)
      .getByText(/^Invite queued, valid until /)
      .waitFor();
    const first = await lastLinkTo(f, email);
    expect(new URL(first).pathname).toBe('/accept-invite');

    // A moment later on the service's clock too, so that the emails' order is their times'.
    f.syncClock();
    await owner.page.getByRole('button', { name: `Resend invite ${email}`, exact: true }).click();
    await owner.page
      .getByRole('status')
      .filter({ hasText: `New invite queued for ${email}` })
      .waitFor();
    const second = await lastLinkTo(f, email);
    expect(second).not.toBe(first);
    // The relay refuses it: the page, following the invite it sent, says so.
    await bounceEmailsTo(f.testApp, email, '550 5.1.1 No such user');
    await owner.page
      .getByRole('status')
      .filter({ hasText: `Invite to ${email} bounced: 550 5.1.1 No such user — check the address` })
      .waitFor({ timeout: WAIT_MS });
    await rowOf(table, email)
      .getByText('Invite bounced: 550 5.1.1 No such user — check the address, then resend it')
      .waitFor();
    await expectNoSeriousAxeViolations(owner.page, 'members-with-invite');
    await screenshot(owner.page, 'members-with-invite');
    await expectNoPageProblems(owner, 'Members (invite)');

    const invited = await f.open();
    const { page } = invited;
    await page.goto(second);
    await expectHeading(page, 'Accept your invite');
    await expectNoSeriousAxeViolations(page, 'accept-invite');
    await screenshot(page, 'accept-invite');
    await choosePassword(page, 'Password', 'too short', 'too short', 'Set password and sign in');
    await page.getByText('Too short: use at least 12 characters.', { exact: true }).waitFor();
    await choosePassword(page, 'Password', CHOSEN, 'not the same password', 'Set password and sign in');
    await page.getByText('Does not match the password above.', { exact: true }).waitFor();
    expect(await page.getByText('Too short', { exact: false }).count()).toBe(0);
    expect(await page.getByRole('alert').count()).toBe(0);
    await choosePassword(page, 'Password', CHOSEN, CHOSEN, 'Set password and sign in');
    await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor({ timeout: WAIT_MS });
    await expectHeading(page, 'Brand');
    await expectNoPageProblems(invited, 'Accept your invite');

    // The first link was replaced by the second, which is used now.
    for (const [link, problem] of [
      [first, 'A newer link was sent; use the one in the latest email.'],
      [second, 'The link was already used: each link works once.'],
    ] as const) {
      const other = await f.open();
      await other.page.goto(link);
      await choosePassword(
        other.page,
        'Password',
        'someone else entirely',
        'someone else entirely',
        'Set password and sign in',
      );
      const alert = other.page.getByRole('alert');
      await alert.filter({ hasText: problem }).waitFor();
      await alert.filter({ hasText: 'Ask a workspace owner or admin to resend your invite.' }).waitFor();
    }

    await owner.page.reload();
    await rowOf(table, email).waitFor();
    expect(
      await rowOf(table, email)
        .getByText(/^Invite /)
        .count(),
    ).toBe(0);
    expect(
      await owner.page.getByRole('button', { name: `Resend invite ${email}`, exact: true }).count(),
    ).toBe(0);
  });

  it('sends a reset link from "Forgot password?", sets the new password, and signs out the sessions of the old one', async () => {
    const f = fixture();
    const email = 'forgetful@browser.example';
    const old = 'the password I forgot soon after';
    await findOrCreateUser(f.testApp.deps, email, old);
    await addMember(f.testApp.deps, f.testApp.app.services.accountMail, OPERATOR, 'owner', f.workspaceId, {
      email,
      role: 'member',
    });
    const before = await f.open();
    await signIn(before.page, email, old);

    const session = await f.open();
    const { page } = session;
    await page.goto('/sign-in');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
    await page.getByRole('link', { name: 'Forgot password?', exact: true }).click();
    await expectHeading(page, 'Reset your password');
    await expectNoSeriousAxeViolations(page, 'reset-password-request');
    // The address typed on Sign in comes along.
    expect(await page.getByRole('textbox', { name: 'Email', exact: true }).inputValue()).toBe(email);
    await page.getByRole('button', { name: 'Send reset link', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'If an account has this email address' }).waitFor();
    await screenshot(page, 'reset-password-request');

    const link = await lastLinkTo(f, email);
    expect(new URL(link).pathname).toBe('/reset-password');
    await page.goto(link);
    await expectHeading(page, 'Choose a new password');
    await expectNoSeriousAxeViolations(page, 'reset-password-choose');
    await choosePassword(page, 'New password', CHOSEN, CHOSEN, 'Set new password');
    await page.getByRole('status').filter({ hasText: 'Your new password is set.' }).waitFor();
    await screenshot(page, 'reset-password-done');
    await expectNoPageProblems(session, 'Reset your password');

    // The session signed in with the old password has ended: its next page asks to sign in.
    await before.page.reload();
    await expectHeading(before.page, 'Sign in');
    await page.getByRole('link', { name: 'Sign in', exact: true }).click();
    await signIn(page, email, CHOSEN);
  });
});
