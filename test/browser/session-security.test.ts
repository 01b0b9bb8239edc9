import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import { listBrandKeys } from '../../src/services/keys/keys.js';
import {
  describeInBrowser,
  type DomWindow,
  expectHeading,
  expectNoPageProblems,
  fetchFromPage,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/** web/CONTRACT.md: the Content-Security-Policy of every console response, directive by directive. */
const CONTRACT_CSP: Record<string, string> = {
  'default-src': "'none'",
  'script-src': "'self'",
  'style-src': "'self'",
  'img-src': "'self' data: https:",
  'font-src': "'self'",
  'connect-src': "'self'",
  'base-uri': "'none'",
  'form-action': "'self'",
  'frame-ancestors': "'none'",
  // The development mailbox frames a captured message's own page (docs/email.md "Without SMTP_URL").
  'frame-src': "'self'",
};

function directives(policy: string): Record<string, string> {
  return Object.fromEntries(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter(([name]) => name)
      .map(([name = '', ...values]) => [name.toLowerCase(), values.join(' ')]),
  );
}

describeInBrowser('The console session in the browser: cookie, CSP, CSRF, sign-out', () => {
  const fixture = useBrowserFixture();

  it('keeps the session in an HttpOnly, SameSite=Strict cookie that page scripts cannot read', async () => {
    const f = fixture();
    const session = await f.open(f.owner, { fresh: true });
    const { page, context } = session;
    const cookies = await context.cookies();
    expect(cookies.length, 'signing in set a cookie').toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie, `cookie ${cookie.name}`).toMatchObject({
        httpOnly: true,
        sameSite: 'Strict',
        path: '/',
      });
    }
    const visible = await page.evaluate(() => (globalThis as unknown as DomWindow).document.cookie);
    for (const cookie of cookies) {
      expect(visible).not.toContain(cookie.name);
      expect(visible).not.toContain(cookie.value);
    }
    // The cookie is the session: without it the API does not know the browser.
    const signedIn = await fetchFromPage(page, { method: 'GET', path: '/api/v1/workspaces' });
    expect(signedIn.status).toBe(200);
    await context.clearCookies();
    const signedOut = await fetchFromPage(page, { method: 'GET', path: '/api/v1/workspaces' });
    expect(signedOut.status).toBe(401);
  });

  it('serves the console with the strict Content-Security-Policy of the contract, and never framed', async () => {
    const f = fixture();
    const session = await f.open();
    for (const path of ['/', '/sign-in', `/w/${f.workspaceId}/settings/agent-access`, '/account/tokens']) {
      const response = await session.page.goto(path);
      expect(response?.status(), path).toBe(200);
      const policy = (await response?.allHeaders())?.['content-security-policy'] ?? '';
      expect(directives(policy), `${path}: ${policy}`).toMatchObject(CONTRACT_CSP);
    }
    // The page still works under that policy: its scripts run (the sign-in form is rendered by React).
    await expectHeading(session.page, 'Sign in');
    await expectNoPageProblems(session, 'console under CSP');
  });

  it('refuses a write sent with the session cookie but without the CSRF token: 403 csrf_failed', async () => {
    const f = fixture();
    const session = await f.open(f.owner);
    const before = await listBrandKeys(f.testApp.deps, f.workspaceId);
    const path = `/api/v1/workspaces/${f.workspaceId}/brand-keys`;

    const withoutToken = await fetchFromPage(session.page, {
      method: 'POST',
      path,
      body: { name: 'forged' },
    });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.body.code).toBe('csrf_failed');

    const wrongToken = await fetchFromPage(session.page, {
      method: 'POST',
      path,
      body: { name: 'forged' },
      csrf: 'not-the-token',
    });
    expect(wrongToken.status).toBe(403);
    expect(wrongToken.body.code).toBe('csrf_failed');

    const revoke = await fetchFromPage(session.page, {
      method: 'DELETE',
      path: `${path}/${before[0]?.id ?? 'bk_missing'}`,
    });
    expect(revoke.status).toBe(403);
    expect(revoke.body.code).toBe('csrf_failed');
    expect(await listBrandKeys(f.testApp.deps, f.workspaceId)).toEqual(before);

    // The same write with the page's token goes through: the refusal was the token's doing.
    const allowed = await fetchFromPage(session.page, {
      method: 'POST',
      path,
      body: { name: 'with token' },
      csrf: 'session',
    });
    expect(allowed.status).toBe(201);
  });

  it('opens signed out without one error in the browser console, with no cookie or with a revoked one', async () => {
    const f = fixture();
    // Every error Chromium logs, the "Failed to load resource" of a 4xx answer included (which
    // PageProblems lets through for the API's refusals the pages show).
    const logged = (page: Page): string[] => {
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`${message.text()} (${message.location().url})`);
      });
      return errors;
    };

    const fresh = await f.open();
    const errors = logged(fresh.page);
    await fresh.page.goto(`/w/${f.workspaceId}/brand`);
    await expectHeading(fresh.page, 'Sign in');
    expect(errors, 'a first visit, signed out').toEqual([]);

    // A cookie whose session was revoked (signed out elsewhere) is as good as none, and as quiet.
    const stale = await f.open(f.owner, { fresh: true });
    const cookies = await stale.context.cookies();
    await stale.page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expectHeading(stale.page, 'Sign in');
    await stale.context.addCookies(cookies);
    const staleErrors = logged(stale.page);
    await stale.page.goto('/');
    await expectHeading(stale.page, 'Sign in');
    expect(staleErrors, 'a revoked session cookie').toEqual([]);
    await expectNoPageProblems(fresh, 'signed out');
    await expectNoPageProblems(stale, 'signed out with a revoked cookie');
  });

  it('signs out with "Sign out": back at Sign in, and the API no longer answers this browser', async () => {
    const f = fixture();
    const session = await f.open(f.owner, { fresh: true });
    const { page, context } = session;
    const signedInCookies = await context.cookies();
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await expectHeading(page, 'Sign in');
    await expect.poll(() => new URL(page.url()).pathname, { timeout: WAIT_MS }).toBe('/sign-in');

    const workspaces = await fetchFromPage(page, { method: 'GET', path: '/api/v1/workspaces' });
    expect(workspaces.status).toBe(401);
    const me = await fetchFromPage(page, { method: 'GET', path: '/auth/v1/session' });
    expect(me.status).toBe(401);
    const kept = (await context.cookies()).filter((cookie) =>
      signedInCookies.some((before) => before.name === cookie.name && before.value === cookie.value),
    );
    expect(kept, 'no cookie of the signed-in browser is left').toEqual([]);

    // A signed-out browser that opens a console page is sent to Sign in.
    await page.goto(`/w/${f.workspaceId}/settings/agent-access`);
    await expectHeading(page, 'Sign in');
    await expectNoPageProblems(session, 'sign out');
  });
});
