import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, onTestFailed } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { newCampaignSchema } from '../../src/contract/campaigns.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { createCampaign } from '../../src/services/campaigns/campaigns.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { DEFAULT_SIGN_IN_LIMITS, type SignInLimits } from '../../src/services/auth/sign-in.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import type { Role } from '../../src/core/roles.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { sqliteBackend, type TestDatabase } from '#test/support/databases.js';
import type { UserRecord } from '../../src/store/store.js';

/*
 * The console in a real headless Chromium (playwright-core), against the real service listening on a
 * free port of 127.0.0.1 and serving the built console from dist/web (`npm run build`). One browser and
 * one service (on its own SQLite file) per test file; every test opens its own page, in a browser context
 * per signed-in account (or a fresh one: see BrowserFixture.open). Tests find controls by role and
 * accessible name, as listed in docs/console.md "Accessible names the browser tests use".
 */

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Where the service under test says it is installed (`serve` passes the directory of dist/). */
export const INSTALL_DIR = resolve(REPO_ROOT);
/** The built console (`npm run build`); BROWSER_TEST_CONSOLE_DIR tests a build kept elsewhere. */
export const CONSOLE_DIR = process.env.BROWSER_TEST_CONSOLE_DIR ?? join(REPO_ROOT, 'dist', 'web');
export const SCREENSHOT_DIR = join(REPO_ROOT, 'test-artifacts', 'screenshots');

/** How long any single wait on the page may take: generous for a 2-core machine, but bounded. */
export const WAIT_MS = 10_000;
export const DAY_MS = 24 * 60 * 60 * 1000;
/** The widths every console page is checked at: a phone and two common laptops. */
export const CONSOLE_VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1280, height: 800 },
  { width: 1366, height: 768 },
] as const;

const chromiumSkipReason = existsSync(CHROMIUM_PATH)
  ? undefined
  : `no Chromium at ${CHROMIUM_PATH} (CI installs it with apt-get install chromium)`;

/**
 * Declares a browser suite. Without Chromium the suite says why in its name and is reported as skipped,
 * never silently passed (as the PostgreSQL suites do without TEST_DATABASE_URL).
 */
export function describeInBrowser(title: string, suite: () => void): void {
  const name = chromiumSkipReason ? `${title} — skipped: ${chromiumSkipReason}` : title;
  describe.skipIf(chromiumSkipReason !== undefined)(name, { timeout: 60_000 }, suite);
}

export interface Account {
  userId: string;
  email: string;
  password: string;
  role: Role;
}

/** Everything that can go wrong on a page without a test looking at it: errors, CSP violations, 5xx. */
export class PageProblems {
  readonly found: string[] = [];

  constructor(page: Page) {
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const url = message.location().url;
      // Chromium logs every 4xx answer to fetch() as "Failed to load resource". The API's refusals
      // (401 for the session probe when signed out, 400 field errors, 412 stale versions…) are the
      // console's business to show, and tests check that it does; they are not page errors.
      if (
        /^Failed to load resource: the server responded with a status of 4\d\d/.test(message.text()) &&
        /\/(api|auth|functions)\//.test(url)
      )
        return;
      this.found.push(`console.error: ${message.text()}${url ? ` (${url})` : ''}`);
    });
    page.on('pageerror', (error) => {
      this.found.push(`uncaught ${error.name}: ${error.message}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 500)
        this.found.push(`${String(response.status())} from ${response.request().method()} ${response.url()}`);
    });
    page.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText ?? 'failed';
      // A reload or navigation cancels requests in flight; that is not a failure of the page.
      if (reason === 'net::ERR_ABORTED') return;
      this.found.push(`request failed: ${request.method()} ${request.url()}: ${reason}`);
    });
  }
}

/** What the init script below records in every document. */
interface CspRecorder {
  __cspViolations?: string[];
}

/**
 * Runs before the page's own scripts in every document of a context. Chromium also logs CSP violations
 * to the console, but the event names the directive and what was blocked.
 */
function recordCspViolations(): void {
  const target = globalThis as unknown as CspRecorder & {
    addEventListener(type: string, listener: (event: Record<string, unknown>) => void): void;
  };
  target.__cspViolations = [];
  target.addEventListener('securitypolicyviolation', (event) => {
    target.__cspViolations?.push(
      `CSP violation: ${String(event.violatedDirective)} blocked ${String(event.blockedURI) || 'inline'}` +
        ` at ${String(event.sourceFile)}:${String(event.lineNumber)}`,
    );
  });
}

export interface Session {
  context: BrowserContext;
  page: Page;
  problems: PageProblems;
}

/** Fails with every problem the page had so far: console errors, uncaught errors, CSP violations, 5xx. */
export async function expectNoPageProblems(session: Session, where: string): Promise<void> {
  const csp = await session.page.evaluate(() => (globalThis as unknown as CspRecorder).__cspViolations ?? []);
  const problems = [...session.problems.found, ...csp];
  expect(problems, `${where}: the page reported problems:\n  ${problems.join('\n  ')}`).toEqual([]);
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: { target: string; html: string; summary: string }[];
}

interface AxeWindow {
  axe: {
    run(
      context: unknown,
      options: { resultTypes: string[] },
    ): Promise<{
      violations: {
        id: string;
        impact?: string | null;
        help: string;
        helpUrl: string;
        nodes: { target: unknown[]; html: string; failureSummary?: string }[];
      }[];
    }>;
  };
  document: unknown;
}

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core on the page as it is now; fails on any violation of impact serious or critical, each named
 * with its rule, help link and the elements at fault. page.evaluate is not subject to the page's CSP (a
 * <script> tag would be).
 */
export async function expectNoSeriousAxeViolations(page: Page, where: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations: AxeViolation[] = await page.evaluate(async () => {
    const window = globalThis as unknown as AxeWindow;
    const results = await window.axe.run(window.document, { resultTypes: ['violations'] });
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      helpUrl: violation.helpUrl,
      nodes: violation.nodes.map((node) => ({
        target: node.target.map(String).join(' '),
        html: node.html,
        summary: node.failureSummary ?? '',
      })),
    }));
  });
  const serious = violations.filter(({ impact }) => impact === 'serious' || impact === 'critical');
  const report = serious
    .map(
      (violation) =>
        `[${violation.impact ?? '?'}] ${violation.id}: ${violation.help} (${violation.helpUrl})\n` +
        violation.nodes
          .map(
            (node) =>
              `      ${node.target}\n        ${node.html}\n        ${node.summary.replace(/\n/g, ' ')}`,
          )
          .join('\n'),
    )
    .join('\n  ');
  expect(serious, `${where}: axe found serious or critical violations:\n  ${report}`).toEqual([]);
}

/**
 * A screenshot at test-artifacts/screenshots/<name>.png: of the whole page, or (`fullPage: false`) of what
 * the window shows, for what sticks to it while a long page scrolls.
 */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage });
}

/** Waits for the one h1 of the page to read exactly `title`. */
export async function expectHeading(page: Page, title: string): Promise<void> {
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor({ timeout: WAIT_MS });
  expect(await page.getByRole('heading', { level: 1 }).count(), `one h1 on the page "${title}"`).toBe(1);
}

/** Signs in through the Sign in page, as a person would, and waits for the signed-in console. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.goto('/sign-in');
  await expectHeading(page, 'Sign in');
  await page.getByRole('textbox', { name: 'Email', exact: true }).fill(email);
  // A password input has no ARIA role (it is not a "textbox"): it is found by its label.
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor({ timeout: WAIT_MS });
}

/** Follows a link of the "Main" navigation and waits for the page's h1. */
export async function navigate(page: Page, link: string, heading = link): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Main', exact: true })
    .getByRole('link', { name: link, exact: true })
    .click();
  await expectHeading(page, heading);
}

/**
 * The little of the DOM that functions run in the page touch. The project compiles without lib.dom, so
 * page-side code casts to these (types only: the function is sent to the page as source text).
 */
export interface DomElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
  contains(other: DomElement | null): boolean;
  blur?(): void;
}

export interface DomStorage {
  length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
}

export interface DomWindow {
  document: {
    cookie: string;
    activeElement: DomElement | null;
    getElementById(id: string): DomElement | null;
    querySelectorAll(selectors: string): ArrayLike<DomElement & { value: string }>;
  };
  navigator: { clipboard: { readText(): Promise<string> } };
  localStorage: DomStorage;
  sessionStorage: DomStorage;
}

/** How wide the page is: wider than the window means it scrolls sideways. */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate(
    () =>
      (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
        .documentElement.scrollWidth,
  );
}

/** The addresses of what the page has fetched (scripts, styles, API calls) that contain `part`. */
export function fetchedResources(page: Page, part: string): Promise<string[]> {
  return page.evaluate(
    (part) =>
      (
        globalThis as unknown as { performance: { getEntriesByType(type: string): { name: string }[] } }
      ).performance
        .getEntriesByType('resource')
        .map((entry) => entry.name)
        .filter((name) => name.includes(part)),
    part,
  );
}

/** Whether `locator` is the focused element of its page. */
export function isFocused(locator: Locator): Promise<boolean> {
  return locator.evaluate(
    (element: unknown) => (globalThis as unknown as DomWindow).document.activeElement === element,
  );
}

/** Where `locator` is against the page's window: 'in view' when all of it is, else what is wrong. */
export async function whereInWindow(page: Page, locator: Locator): Promise<string> {
  const [box, height] = [await locator.boundingBox(), page.viewportSize()?.height ?? 0];
  if (box === null) return 'not shown';
  if (box.y < 0) return `above the window (top at ${String(box.y)})`;
  if (box.y + box.height > height) return `below the window (bottom at ${String(box.y + box.height)})`;
  return 'in view';
}

/** Whether the focused element of the page is `locator` or inside it. */
export function containsFocus(locator: Locator): Promise<boolean> {
  return locator.evaluate((element: unknown) =>
    (element as DomElement).contains((globalThis as unknown as DomWindow).document.activeElement),
  );
}

/** The cell of `column` (by its column header's text) in the row of `table` that contains `rowText`. */
export async function cellOf(table: Locator, rowText: string, column: string): Promise<Locator> {
  // The table may still be loading (after a navigation or reload): wait for its header before counting.
  await table.getByRole('columnheader', { name: column, exact: true }).first().waitFor({ timeout: WAIT_MS });
  const headers = (await table.getByRole('columnheader').allInnerTexts()).map((text) => text.trim());
  const index = headers.indexOf(column);
  expect(index, `column "${column}" among ${JSON.stringify(headers)}`).toBeGreaterThanOrEqual(0);
  return rowOf(table, rowText).locator('td, th').nth(index);
}

/** The row of `table` whose text contains `text` (exactly one). */
export function rowOf(table: Locator, text: string): Locator {
  return table.getByRole('row').filter({ hasText: text });
}

/** Polls `read` until it returns `expected` (a bounded wait for the page to settle). */
export async function eventually<T>(read: () => Promise<T>, expected: T, message?: string): Promise<void> {
  await expect.poll(read, { timeout: WAIT_MS, interval: 100, message }).toEqual(expected);
}

/** A live log's first page (the console asks for 20 entries), with its header row. */
const FIRST_PAGE_ROWS = 21;

/**
 * The rest of a live log (the delivery log, the message log) of `total` entries, once its first page shows:
 * Load more brings the others and goes. Then its Status filter: by `none`, a status no entry has, it says
 * `emptyText`; by `all`, the status of every entry, it shows the first page again.
 */
export async function expectLoadMoreAndFilter(
  page: Page,
  log: Locator,
  total: number,
  filter: { none: string; emptyText: string; all: string },
): Promise<void> {
  const loadMore = page.getByRole('button', { name: 'Load more', exact: true });
  await loadMore.click();
  await eventually(() => log.getByRole('row').count(), total + 1);
  await loadMore.waitFor({ state: 'detached' });

  const status = page.getByRole('combobox', { name: 'Status', exact: true });
  await status.selectOption(filter.none);
  await log.getByText(filter.emptyText, { exact: true }).waitFor({ timeout: WAIT_MS });
  await status.selectOption(filter.all);
  await eventually(() => log.getByRole('row').count(), FIRST_PAGE_ROWS);
}

export interface PageFetchResult {
  status: number;
  body: { code?: string } & Record<string, unknown>;
}

/**
 * A request sent by the page's own fetch, with its cookies (`credentials: 'include'`), as script on the
 * console's origin would send it. `csrf`: 'session' sends the token `GET /auth/v1/session` hands this
 * page; 'none' sends no X-CSRF-Token; any other string is sent as the token.
 */
export function fetchFromPage(
  page: Page,
  request: { method: string; path: string; body?: unknown; csrf?: 'session' | 'none' | (string & {}) },
): Promise<PageFetchResult> {
  return page.evaluate(async ({ method, path, body, csrf = 'none' }) => {
    const headers: Record<string, string> = {};
    if (csrf === 'session') {
      const session = await fetch('/auth/v1/session', { credentials: 'include' });
      headers['x-csrf-token'] = ((await session.json()) as { csrf_token: string }).csrf_token;
    } else if (csrf !== 'none') headers['x-csrf-token'] = csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(path, {
      method,
      headers,
      credentials: 'include',
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : {}) as { code?: string } & Record<string, unknown>,
    };
  }, request);
}

export interface ReadResult {
  status: number;
  body: Record<string, unknown>;
}

export interface BrowserFixture {
  testApp: TestApp;
  /** The service's database, for what the tests read from its tables (the email it queued). */
  database: TestDatabase;
  /** The service's base URL, e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  browser: Browser;
  workspaceId: string;
  workspaceName: string;
  owner: Account;
  admin: Account;
  member: Account;
  /** A brand read key the operator created (the table is never empty), and its id. */
  seededKeyName: string;
  /** A draft campaign in the workspace. */
  campaignId: string;
  campaignName: string;
  /**
   * A new page, signed in when `account` is given, on the console's home page. The first time an account
   * is opened in a file it signs in through the Sign in page, in a browser context of its own; later
   * calls open a new page in that same context (a sign-in costs a deliberately slow scrypt, a new context
   * a cold cache). `fresh` gets a context of its own (new cookies, new storage) and a new sign-in: for
   * tests that sign out, clear cookies or otherwise spoil the context for the others. Without `account`,
   * always a new, signed-out context.
   */
  open(account?: Account, options?: { fresh?: boolean }): Promise<Session>;
  /** The read operation as an integrator calls it, with Node's fetch. */
  readBrand(key: string): Promise<ReadResult>;
  /** Moves the service's (manual) clock to the real time, which the browser's clock shows. */
  syncClock(offsetMs?: number): void;
}

const PASSWORDS: Record<Role, string> = {
  owner: 'owner password for the browser suite',
  admin: 'admin password for the browser suite',
  member: 'member password for the browser suite',
};

/**
 * The scrypt hashes of PASSWORDS (hashPassword of src/services/auth/passwords.ts, which keeps its parameters
 * in the hash). Hashing three passwords at OWASP's scrypt cost takes over a second on two cores, in every
 * file; the sign-ins still verify them the slow way.
 */
const PASSWORD_HASHES: Record<Role, string> = {
  owner: 'scrypt$131072$8$1$-JG7MDAFUfGgwMfUsXSHGQ$r3WffnuqCo3NKg8kQzjt_wIfJ8NYsX5n1hrg46BJWdQ',
  admin: 'scrypt$131072$8$1$m_fK_4UmQyfI0fUeqSbJKQ$A71FQmN-sWsQ-ut2IER5iayRg3s6yukWggPhWANylo0',
  member: 'scrypt$131072$8$1$nMWzGtf8fXUPef-qEEESAg$7QlnA77uOAFr5GaJCXwEed2j3WoLZJwqrN_mEt_uo1Q',
};

/** Starts browser, service and seed for the enclosing suite; returns a getter for the fixture. */
export function useBrowserFixture(): () => BrowserFixture {
  let fixture: BrowserFixture | undefined;
  let database: TestDatabase | undefined;
  const contexts: BrowserContext[] = [];
  let opened = 0;
  /** Each account's signed-in browser context, shared by the tests of this file that do not ask for a fresh one. */
  const signedIn = new Map<string, BrowserContext>();

  beforeAll(async () => {
    if (!existsSync(join(CONSOLE_DIR, 'index.html')))
      throw new Error(`${CONSOLE_DIR}/index.html is missing: run \`npm run build\` before the browser tests`);
    database = await sqliteBackend.create();
    const testApp = await startTestApp(database, {
      consoleDir: CONSOLE_DIR,
      installDir: INSTALL_DIR,
      // Every sign-in of a file comes from 127.0.0.1: each of the throttle's limits is generous here (the
      // throttle has its own tests).
      signInLimits: Object.fromEntries(
        Object.keys(DEFAULT_SIGN_IN_LIMITS).map((limit) => [limit, { attempts: 1000, windowSeconds: 60 }]),
      ) as unknown as SignInLimits,
      usageFlushMs: 200,
      // The webhook suite's receivers listen on 127.0.0.1.
      webhooks: { allowPrivateUrls: true },
    });
    const { deps, clock } = testApp;
    // The browser's clock is the real one: relative times ("expires in 90 days") are judged against it.
    clock.advance(Date.now() - clock.now());

    const accounts = new Map<Role, Account & { user: UserRecord }>();
    for (const role of ['owner', 'admin', 'member'] as const) {
      const email = `${role}@browser.example`;
      const user = await findOrCreateUser(deps, email);
      await testApp.store.users.setPasswordHash(user.id, PASSWORD_HASHES[role]);
      accounts.set(role, { user, userId: user.id, email, password: PASSWORDS[role], role });
    }
    const owner = accounts.get('owner');
    const admin = accounts.get('admin');
    const member = accounts.get('member');
    if (!owner || !admin || !member) throw new Error('seed users missing');
    const workspaceName = 'Acme Coffee';
    const workspace = await createWorkspace(deps, OPERATOR, { name: workspaceName, owner: owner.user });
    for (const account of [admin, member])
      await testApp.store.workspaces.addMember({
        workspaceId: workspace.id,
        userId: account.userId,
        role: account.role,
        createdAt: new Date(clock.now()).toISOString(),
      });
    await replaceBrand(deps, OPERATOR, workspace.id, parseBrandDocument(DEMO_BRAND));
    const seededKeyName = 'Website build';
    await createBrandKey(deps, OPERATOR, { workspaceId: workspace.id, name: seededKeyName });
    const campaignName = 'December newsletter';
    const campaign = await createCampaign(
      deps,
      OPERATOR,
      workspace.id,
      newCampaignSchema.parse({
        name: campaignName,
        subject: 'Our winter blend is back',
        body_text: 'Hello from Portland.',
      }),
    );

    const port = await listenOnLoopback(testApp.app);
    const baseUrl = `http://127.0.0.1:${String(port)}`;
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      headless: true,
      args: ['--no-sandbox'],
    });

    fixture = {
      testApp,
      database,
      baseUrl,
      browser,
      workspaceId: workspace.id,
      workspaceName,
      owner,
      admin,
      member,
      seededKeyName,
      campaignId: campaign.id,
      campaignName,
      async open(account, { fresh = false } = {}) {
        const shared = account && !fresh ? signedIn.get(account.email) : undefined;
        const context =
          shared ?? (await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } }));
        if (!shared) {
          context.setDefaultTimeout(WAIT_MS);
          await context.addInitScript(recordCspViolations);
          contexts.push(context);
        }
        // One page per test: the previous test's page of a shared context is done with.
        for (const old of context.pages()) await old.close();
        const page = await context.newPage();
        const session = { context, page, problems: new PageProblems(page) };
        const index = ++opened;
        // What the page looked like, and what it complained of, when its test failed.
        onTestFailed(async ({ task }) => {
          const name = `failed-${task.name.replace(/[^A-Za-z0-9]+/g, '-').slice(0, 80)}-${String(index)}`;
          await screenshot(page, name).catch(() => undefined);
          if (session.problems.found.length > 0)
            console.error(`${task.name}: the page reported:\n  ${session.problems.found.join('\n  ')}`);
        });
        if (account && shared) {
          await page.goto('/');
          await page.getByRole('button', { name: 'Sign out', exact: true }).waitFor();
        } else if (account) {
          await signIn(page, account.email, account.password);
          if (!fresh) signedIn.set(account.email, context);
        }
        return session;
      },
      async readBrand(key) {
        const response = await fetch(`${baseUrl}/functions/v1/brand-agent`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'context', workspace_id: workspace.id }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, unknown> };
      },
      syncClock(offsetMs = 0) {
        clock.advance(Date.now() + offsetMs - clock.now());
      },
    };
  });

  beforeEach(() => {
    fixture?.syncClock();
  });

  afterAll(async () => {
    for (const context of contexts) await context.close().catch(() => undefined);
    await fixture?.browser.close();
    await fixture?.testApp.close();
    await database?.drop();
  });

  return () => {
    if (!fixture) throw new Error('browser fixture not started');
    return fixture;
  };
}
