import { createHash, randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { expect, it } from 'vitest';
import {
  type BrowserFixture,
  CONSOLE_VIEWPORTS,
  describeInBrowser,
  expectHeading,
  expectNoPageProblems,
  expectNoSeriousAxeViolations,
  fetchFromPage,
  pageWidth,
  screenshot,
  useBrowserFixture,
  WAIT_MS,
} from './browser-harness.js';

/*
 * The consent page of the OAuth flow of /mcp (docs/connect-ai-client.md "Connect an AI client"), as a person
 * connecting an AI client meets it: the client registers itself, the browser opens /oauth/authorize, the
 * console asks, and the browser goes back to the client's redirect URI.
 */

/** The client's own callback: nothing listens there, the page's requests to it are answered by the test. */
const REDIRECT_URI = 'http://127.0.0.1:9/callback';
const CLIENT_NAME = 'Claude';

interface Client {
  clientId: string;
  verifier: string;
}

/** A public client registered as an MCP client does (RFC 7591), and a PKCE verifier for one flow. */
async function registerClient(f: BrowserFixture): Promise<Client> {
  const response = await fetch(`${f.baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: CLIENT_NAME,
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    }),
  });
  expect(response.status).toBe(201);
  const { client_id: clientId } = (await response.json()) as { client_id: string };
  return { clientId, verifier: randomBytes(32).toString('base64url') };
}

/** The address an MCP client opens in the browser to ask for access (PKCE S256, RFC 8707 resource). */
function authorizeUrl(f: BrowserFixture, client: Client, scope: string, state: string): string {
  const challenge = createHash('sha256').update(client.verifier).digest('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    scope,
    state,
    resource: `${f.baseUrl}/mcp`,
  });
  return `/oauth/authorize?${query.toString()}`;
}

/** Answers the page's navigations to the client's callback, as the client's own listener would. */
async function answerCallback(page: Page): Promise<void> {
  await page.route(`${REDIRECT_URI}**`, (route) =>
    route.fulfill({
      contentType: 'text/html',
      body: '<!doctype html><title>Callback</title><p>Connected.</p>',
    }),
  );
}

/** Clicks `button` of the consent page; resolves to the callback address the browser was sent to. */
async function decide(page: Page, button: 'Allow' | 'Deny'): Promise<URL> {
  await page.getByRole('button', { name: button, exact: true }).click();
  await page.waitForURL((address) => address.href.startsWith(`${REDIRECT_URI}?`), { timeout: WAIT_MS });
  return new URL(page.url());
}

/** The code exchanged as the client would (RFC 6749 §4.1.3 with PKCE): the token answer. */
async function exchangeCode(
  f: BrowserFixture,
  client: Client,
  code: string,
): Promise<Record<string, unknown>> {
  const response = await fetch(`${f.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: client.clientId,
      code_verifier: client.verifier,
      resource: `${f.baseUrl}/mcp`,
    }).toString(),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

/** Waits for the consent page of CLIENT_NAME, naming the host of its redirect URI. */
async function expectConsent(page: Page): Promise<void> {
  await expectHeading(page, `${CLIENT_NAME} wants to access Brand Context`);
  await page.getByText('You will be sent to 127.0.0.1:9', { exact: true }).waitFor({ timeout: WAIT_MS });
}

describeInBrowser('Consent to an AI client on /connect (the OAuth flow of /mcp)', () => {
  const fixture = useBrowserFixture();

  it('asks a signed-out visitor to sign in first, then shows the client’s name and where the browser goes, and Allow returns a code with the state and iss', async () => {
    const f = fixture();
    const client = await registerClient(f);
    const session = await f.open();
    const { page } = session;
    await answerCallback(page);

    await page.goto(authorizeUrl(f, client, 'brand:read campaigns:read', 'state-allow'));
    await expectHeading(page, 'Sign in');
    await page.getByRole('textbox', { name: 'Email', exact: true }).fill(f.owner.email);
    await page.getByLabel('Password', { exact: true }).fill(f.owner.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();

    // Back on the consent page, with the authorization request it was opened with.
    await expectConsent(page);
    const shown = new URL(page.url());
    expect(shown.pathname).toBe('/connect');
    expect(shown.searchParams.get('client_id')).toBe(client.clientId);
    expect(shown.searchParams.get('state')).toBe('state-allow');
    // One workspace: no picker, its name instead; the asked scopes ticked, nothing else offered.
    expect(await page.getByRole('combobox', { name: 'Workspace', exact: true }).count()).toBe(0);
    await page.getByText(f.workspaceName, { exact: true }).waitFor();
    const scopes = page.getByRole('group', { name: `Allow ${CLIENT_NAME} to`, exact: true });
    expect(await scopes.getByRole('checkbox').count()).toBe(2);
    expect(await scopes.getByRole('checkbox', { name: 'Read the brand', exact: true }).isChecked()).toBe(
      true,
    );
    expect(
      await scopes.getByRole('checkbox', { name: 'Read campaign drafts', exact: true }).isChecked(),
    ).toBe(true);

    const back = await decide(page, 'Allow');
    expect(back.searchParams.get('code')).toMatch(/^oac_/);
    expect(back.searchParams.get('state')).toBe('state-allow');
    expect(back.searchParams.get('iss')).toBe(f.baseUrl);
    expect(back.searchParams.get('error')).toBeNull();

    const tokens = await exchangeCode(f, client, back.searchParams.get('code') ?? '');
    expect(tokens.access_token).toMatch(/^oat_/);
    expect(String(tokens.scope).split(' ').sort()).toEqual(['brand:read', 'campaigns:read']);
    await expectNoPageProblems(session, 'consent (allow)');
  });

  it('grants only the scopes left ticked', async () => {
    const f = fixture();
    const client = await registerClient(f);
    const session = await f.open(f.owner);
    const { page } = session;
    await answerCallback(page);
    await page.goto(authorizeUrl(f, client, 'brand:read campaigns:read campaigns:write', 'state-some'));
    await expectConsent(page);
    const scopes = page.getByRole('group', { name: `Allow ${CLIENT_NAME} to`, exact: true });
    await scopes.getByRole('checkbox', { name: 'Create and edit campaign drafts', exact: true }).uncheck();
    await scopes.getByRole('checkbox', { name: 'Read campaign drafts', exact: true }).uncheck();

    const back = await decide(page, 'Allow');
    const tokens = await exchangeCode(f, client, back.searchParams.get('code') ?? '');
    expect(tokens.scope).toBe('brand:read');
    await expectNoPageProblems(session, 'consent (some scopes)');
  });

  it('sends the browser back with error=access_denied, the state and iss, and no code, on Deny', async () => {
    const f = fixture();
    const client = await registerClient(f);
    const session = await f.open(f.owner);
    const { page } = session;
    await answerCallback(page);
    await page.goto(authorizeUrl(f, client, 'brand:read', 'state-deny'));
    await expectConsent(page);

    const back = await decide(page, 'Deny');
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-deny');
    expect(back.searchParams.get('iss')).toBe(f.baseUrl);
    expect(back.searchParams.get('code')).toBeNull();
    await expectNoPageProblems(session, 'consent (deny)');
  });

  it('shows a request the service refuses as an error page with its detail and resolution, and goes nowhere', async () => {
    const f = fixture();
    const client = await registerClient(f);
    const session = await f.open(f.owner);
    const { page } = session;
    // Opened straight, with a redirect URI the client never registered.
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: 'https://attacker.example/callback',
      code_challenge: createHash('sha256').update(client.verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'state-bad',
      resource: `${f.baseUrl}/mcp`,
    });
    await page.goto(`/connect?${query.toString()}`);
    await expectHeading(page, 'This app cannot connect');
    const alert = page.getByRole('alert');
    await alert.locator('.alert-detail').waitFor();
    expect((await alert.locator('.alert-detail').innerText()).trim()).not.toBe('');
    expect((await alert.locator('.alert-resolution').innerText()).trim()).not.toBe('');
    expect(await page.getByRole('button', { name: 'Allow', exact: true }).count()).toBe(0);
    expect(new URL(page.url()).pathname).toBe('/connect');
    await screenshot(page, 'oauth-consent-refused');
    await expectNoPageProblems(session, 'consent (refused request)');
  });

  it('is never framed, and takes a decision only with the page’s CSRF token', async () => {
    const f = fixture();
    const client = await registerClient(f);
    const session = await f.open(f.owner);
    const { page } = session;
    await answerCallback(page);
    const response = await page.goto(authorizeUrl(f, client, 'brand:read', 'state-csrf'));
    await expectConsent(page);
    expect(response?.headers()['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response?.headers()['x-frame-options']).toBe('DENY');

    // A script on the page without the token (or a cross-site form, which cannot send it) gets no code.
    const query = Object.fromEntries(new URL(page.url()).searchParams);
    const decision = { ...query, workspace_id: f.workspaceId, scopes: ['brand:read'], decision: 'allow' };
    for (const csrf of ['none', 'not-the-token']) {
      const forged = await fetchFromPage(page, {
        method: 'POST',
        path: '/api/v1/oauth/authorization',
        body: decision,
        csrf,
      });
      expect(forged.status).toBe(403);
      expect(forged.body.code).toBe('csrf_failed');
    }
    // The page's own Allow still works: the refusals were the token's doing.
    const back = await decide(page, 'Allow');
    expect(back.searchParams.get('code')).toMatch(/^oac_/);
    await expectNoPageProblems(session, 'consent (CSRF)');
  });

  for (const viewport of CONSOLE_VIEWPORTS)
    it(`fits the consent page into ${String(viewport.width)} px, with no serious axe violation`, async () => {
      const f = fixture();
      const client = await registerClient(f);
      const session = await f.open(f.owner);
      const { page } = session;
      await page.setViewportSize(viewport);
      await page.goto(authorizeUrl(f, client, 'brand:read campaigns:read campaigns:write', 'state-layout'));
      await expectConsent(page);
      expect(await pageWidth(page)).toBeLessThanOrEqual(viewport.width);
      const allow = page.getByRole('button', { name: 'Allow', exact: true });
      await allow.scrollIntoViewIfNeeded();
      expect(await allow.isEnabled()).toBe(true);
      await expectNoSeriousAxeViolations(page, `consent at ${String(viewport.width)} px`);
      await screenshot(page, `oauth-consent-${String(viewport.width)}`);
      await expectNoPageProblems(session, `consent at ${String(viewport.width)} px`);
    });
});
