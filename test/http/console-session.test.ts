import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import { createBrandKey } from '../../src/services/keys.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/workspaces.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DAY_MS } from '../support/clock.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '../support/databases.js';
import { problemOf } from '../support/http-fixture.js';

const PASSWORD = 'correct horse battery staple';

interface ConsoleSession {
  user: { id: string; email: string };
  csrf_token: string;
  expires_in: number;
}

/** The cookies a response sets, by name, with their attributes as written. */
function setCookies(response: LightMyRequestResponse): Map<string, string> {
  const header = response.headers['set-cookie'];
  const lines = header === undefined ? [] : Array.isArray(header) ? header : [header];
  return new Map(lines.map((line) => [line.slice(0, line.indexOf('=')), line]));
}

/** What a browser would send back: `name=value` pairs of the cookies a response set. */
function cookieHeader(response: LightMyRequestResponse): string {
  return [...setCookies(response).values()].map((line) => line.split(';')[0]).join('; ');
}

describeEachBackend('the console session (cookie + CSRF)', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let consoleDir: string;
  let workspaceId: string;
  let email: string;

  beforeAll(async () => {
    consoleDir = await mkdtemp(join(tmpdir(), 'brand-context-console-'));
    await mkdir(join(consoleDir, 'assets'));
    await writeFile(join(consoleDir, 'index.html'), '<!doctype html><title>Brand Context</title>');
    await writeFile(join(consoleDir, 'assets', 'app-1a2b3c.js'), 'export {};');
    database = await backend.create();
    testApp = await startTestApp(database, { consoleDir, trustProxy: true });
    workspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Acme Coffee' })).id;
    email = `owner-${backend.name}@example.com`;
    const owner = await findOrCreateUser(testApp.deps, email, PASSWORD);
    await testApp.store.workspaces.addMember({
      workspaceId,
      userId: owner.id,
      role: 'owner',
      createdAt: new Date(testApp.clock.now()).toISOString(),
    });
  });

  afterAll(async () => {
    await testApp.close();
    await database.drop();
    await rm(consoleDir, { recursive: true, force: true });
  });

  const signIn = (headers: Record<string, string> = {}, password = PASSWORD) =>
    testApp.app.inject({ method: 'POST', url: '/auth/v1/session', headers, payload: { email, password } });

  async function session() {
    const response = await signIn();
    expect(response.statusCode).toBe(200);
    return { cookie: cookieHeader(response), csrf: response.json<ConsoleSession>().csrf_token };
  }

  const createKey = (headers: Record<string, string>) =>
    testApp.app.inject({
      method: 'POST',
      url: `/api/v1/workspaces/${workspaceId}/brand-keys`,
      headers,
      payload: { name: 'from the console' },
    });

  it('signs in with an HttpOnly, SameSite=Strict session cookie and answers with a CSRF token, not the token', async () => {
    const response = await signIn();
    expect(response.statusCode).toBe(200);
    const body = response.json<ConsoleSession>();
    expect(body.user.email).toBe(email);
    expect(body.csrf_token).toMatch(/^[\w-]{20,}$/);
    expect(body.expires_in).toBe(3600);
    const cookies = setCookies(response);
    const sessionCookie = cookies.get('bc_session') ?? '';
    expect(sessionCookie).toMatch(/; HttpOnly/);
    expect(sessionCookie).toMatch(/; SameSite=Strict/);
    expect(sessionCookie).toMatch(/; Max-Age=3600/);
    expect(sessionCookie).not.toMatch(/; Secure/);
    expect(cookies.get('bc_csrf')).toMatch(/; HttpOnly; SameSite=Strict/);
    // The user token lives only in the cookie, where page scripts cannot read it.
    expect(response.body).not.toContain(sessionCookie.split(';')[0]?.slice('bc_session='.length));
  });

  it('marks the cookies Secure when the console is reached over https', async () => {
    const response = await signIn({ 'x-forwarded-proto': 'https' });
    expect(setCookies(response).get('bc_session')).toMatch(/; Secure/);
    expect(setCookies(response).get('bc_csrf')).toMatch(/; Secure/);
  });

  it('sets no cookie for a wrong password', async () => {
    const response = await signIn({}, 'not the password at all');
    expect(problemOf(response).code).toBe('invalid_credentials');
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  it('authenticates management reads with the cookie alone', async () => {
    const { cookie } = await session();
    const response = await testApp.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { cookie },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json<{ workspaces: { id: string }[] }>().workspaces.map((w) => w.id)).toEqual([
      workspaceId,
    ]);
  });

  it('refuses a cookie write without the CSRF token, or with another session’s, with 403 csrf_failed and changes nothing', async () => {
    const mine = await session();
    const theirs = await session();
    const before = await snapshotTables(database.config);
    for (const headers of [
      { cookie: mine.cookie } as Record<string, string>,
      { cookie: mine.cookie, 'x-csrf-token': 'forged' },
      { cookie: mine.cookie, 'x-csrf-token': theirs.csrf },
    ]) {
      const response = await createKey(headers);
      expect(response.statusCode).toBe(403);
      expect(problemOf(response).code).toBe('csrf_failed');
    }
    expect(await snapshotTables(database.config)).toEqual(before);
  });

  it('accepts a cookie write that carries its session’s CSRF token', async () => {
    const { cookie, csrf } = await session();
    const response = await createKey({ cookie, 'x-csrf-token': csrf });
    expect(response.statusCode).toBe(201);
  });

  it('needs no CSRF token for bearer-token writes, which a browser never sends on its own', async () => {
    const token = (
      await testApp.app.inject({
        method: 'POST',
        url: '/auth/v1/token',
        payload: { email, password: PASSWORD },
      })
    ).json<{ access_token: string }>().access_token;
    expect((await createKey({ authorization: `Bearer ${token}` })).statusCode).toBe(201);
  });

  it('tells the console who is signed in, and answers 401 without a session or after it expired', async () => {
    const { cookie } = await session();
    const current = await testApp.app.inject({ method: 'GET', url: '/auth/v1/session', headers: { cookie } });
    expect(current.statusCode).toBe(200);
    expect(current.json<ConsoleSession>().user.email).toBe(email);
    expect(current.headers['cache-control']).toBe('no-store');

    const none = await testApp.app.inject({ method: 'GET', url: '/auth/v1/session' });
    expect(problemOf(none).code).toBe('missing_token');

    testApp.clock.advance(DAY_MS);
    const expired = await testApp.app.inject({ method: 'GET', url: '/auth/v1/session', headers: { cookie } });
    expect(problemOf(expired).code).toBe('token_expired');
  });

  it('signs out with the CSRF token, clearing both cookies; without it, sign-out is refused', async () => {
    const { cookie, csrf } = await session();
    const refused = await testApp.app.inject({
      method: 'DELETE',
      url: '/auth/v1/session',
      headers: { cookie },
    });
    expect(problemOf(refused).code).toBe('csrf_failed');
    const response = await testApp.app.inject({
      method: 'DELETE',
      url: '/auth/v1/session',
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(response.statusCode).toBe(204);
    const cleared = setCookies(response);
    expect(cleared.get('bc_session')).toMatch(/^bc_session=; Max-Age=0/);
    expect(cleared.get('bc_csrf')).toMatch(/^bc_csrf=; Max-Age=0/);
  });

  it('revokes the session on sign-out: a copy of the cookie stops working, other sessions do not', async () => {
    const signedOut = await session();
    const other = await session();
    const response = await testApp.app.inject({
      method: 'DELETE',
      url: '/auth/v1/session',
      headers: { cookie: signedOut.cookie, 'x-csrf-token': signedOut.csrf },
    });
    expect(response.statusCode).toBe(204);
    const replayed = await testApp.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { cookie: signedOut.cookie },
    });
    expect(problemOf(replayed).code).toBe('token_revoked');
    const still = await testApp.app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: { cookie: other.cookie },
    });
    expect(still.statusCode).toBe(200);
  });

  it('never lets the session cookie stand in for a brand read key on the read operation', async () => {
    const { cookie } = await session();
    const response = await testApp.app.inject({
      method: 'POST',
      url: '/functions/v1/brand-agent',
      headers: { cookie },
      payload: { action: 'context', workspace_id: workspaceId },
    });
    expect(problemOf(response).code).toBe('missing_key');
  });

  it.each(['/', '/sign-in', '/w/ws_x/settings/agent-access', '/account/tokens'])(
    'serves the console page %s with a strict Content-Security-Policy',
    async (url) => {
      const response = await testApp.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.body).toContain('<title>Brand Context</title>');
      expect(response.headers['content-security-policy']).toContain("script-src 'self'");
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(response.headers['content-security-policy']).not.toContain('unsafe');
      expect(response.headers['x-frame-options']).toBe('DENY');
      expect(response.headers['cache-control']).toBe('no-cache');
    },
  );

  it('caches the hashed console assets for good', async () => {
    const response = await testApp.app.inject({ method: 'GET', url: '/assets/app-1a2b3c.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('keeps unknown paths problem+json 404s, and the API free of console headers', async () => {
    for (const url of ['/nope', '/api/v1/nope', '/w']) {
      const response = await testApp.app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const key = await createBrandKey(testApp.deps, OPERATOR, { workspaceId, name: 'script' });
    const read = await testApp.app.inject({
      method: 'POST',
      url: '/functions/v1/brand-agent',
      headers: { authorization: `Bearer ${key.key}` },
      payload: { action: 'context', workspace_id: workspaceId },
    });
    expect(read.statusCode).toBe(200);
    expect(read.headers['content-security-policy']).toBeUndefined();
    expect(read.headers['set-cookie']).toBeUndefined();
  });
});
