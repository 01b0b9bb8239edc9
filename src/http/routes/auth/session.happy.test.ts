import { expect, it } from 'vitest';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import {
  consoleAccount,
  type ConsoleSession,
  consoleSessionApi,
  setCookies,
} from '#test/support/fixtures/auth.js';

describeEachBackend('the console session (/auth/v1/session, cookie + CSRF): the happy paths', (backend) => {
  const fixture = useFixture(backend, { extend: consoleAccount });
  const { signIn, session, createKey, listWorkspaces, current, status, signOut } = consoleSessionApi(fixture);

  it('signs in with an HttpOnly, SameSite=Strict session cookie and answers with a CSRF token, not the token', async () => {
    const response = await signIn();
    expect(response.statusCode).toBe(200);
    const body = response.json<ConsoleSession>();
    expect(body.user.email).toBe(fixture().email);
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

  it('authenticates management reads with the cookie alone', async () => {
    const { cookie } = await session();
    const response = await listWorkspaces(cookie);
    expect(response.statusCode).toBe(200);
    expect(response.json<{ workspaces: { id: string }[] }>().workspaces.map((w) => w.id)).toEqual([
      fixture().workspaceId,
    ]);
  });

  it('accepts a cookie write that carries its session’s CSRF token', async () => {
    const { cookie, csrf } = await session();
    const response = await createKey({ cookie, 'x-csrf-token': csrf });
    expect(response.statusCode).toBe(201);
  });

  it('tells the console who is signed in, and answers 401 without a session or after it expired', async () => {
    const { cookie } = await session();
    const signedIn = await current({ cookie });
    expect(signedIn.statusCode).toBe(200);
    expect(signedIn.json<ConsoleSession>().user.email).toBe(fixture().email);
    expect(signedIn.headers['cache-control']).toBe('no-store');

    const none = await current();
    expect(problemOf(none).code).toBe('missing_token');

    fixture().clock.advance(DAY_MS);
    const expired = await current({ cookie });
    expect(problemOf(expired).code).toBe('token_expired');
  });

  it('tells the console with a 200 whether anyone is signed in: who, with a CSRF token that writes, or signed_in false without a session, after it expired or after sign-out', async () => {
    const none = await status();
    expect(none.statusCode).toBe(200);
    expect(none.json()).toEqual({ signed_in: false });
    expect(none.headers['cache-control']).toBe('no-store');
    expect(none.headers['set-cookie']).toBeUndefined();

    const { cookie } = await session();
    const signedIn = await status({ cookie });
    expect(signedIn.statusCode).toBe(200);
    const body = signedIn.json<ConsoleSession & { signed_in: boolean }>();
    expect(body).toMatchObject({ signed_in: true, user: { email: fixture().email }, expires_in: 3600 });
    expect(signedIn.headers['cache-control']).toBe('no-store');
    // Its CSRF token is this page load's, as GET /auth/v1/session's is: a write carrying it goes through.
    const renewed = setCookies(signedIn).get('bc_csrf')?.split(';')[0];
    const withToken =
      renewed === undefined
        ? cookie
        : [...cookie.split('; ').filter((part) => !part.startsWith('bc_csrf=')), renewed].join('; ');
    expect((await createKey({ cookie: withToken, 'x-csrf-token': body.csrf_token })).statusCode).toBe(201);

    const other = await session();
    expect((await signOut({ cookie: other.cookie, 'x-csrf-token': other.csrf })).statusCode).toBe(204);
    expect((await status({ cookie: other.cookie })).json()).toEqual({ signed_in: false });

    fixture().clock.advance(DAY_MS);
    const expired = await status({ cookie });
    expect(expired.statusCode).toBe(200);
    expect(expired.json()).toEqual({ signed_in: false });
  });

  it('signs out with the CSRF token, clearing both cookies; without it, sign-out is refused', async () => {
    const { cookie, csrf } = await session();
    const refused = await signOut({ cookie });
    expect(problemOf(refused).code).toBe('csrf_failed');
    const response = await signOut({ cookie, 'x-csrf-token': csrf });
    expect(response.statusCode).toBe(204);
    const cleared = setCookies(response);
    expect(cleared.get('bc_session')).toMatch(/^bc_session=; Max-Age=0/);
    expect(cleared.get('bc_csrf')).toMatch(/^bc_csrf=; Max-Age=0/);
  });
});
