import { expect, it } from 'vitest';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import { consoleAccount, consoleSessionApi, PASSWORD, setCookies } from '#test/support/fixtures/auth.js';

describeEachBackend('the console session (/auth/v1/session, cookie + CSRF): security', (backend) => {
  // behind a proxy, so that X-Forwarded-Proto says when the console is reached over https
  const fixture = useFixture(backend, { app: { trustProxy: true }, extend: consoleAccount });
  const { signIn, session, createKey, listWorkspaces, signOut } = consoleSessionApi(fixture);

  it('marks the cookies Secure when the console is reached over https', async () => {
    const response = await signIn({ 'x-forwarded-proto': 'https' });
    expect(setCookies(response).get('bc_session')).toMatch(/; Secure/);
    expect(setCookies(response).get('bc_csrf')).toMatch(/; Secure/);
  });

  it('refuses a cookie write without the CSRF token, or with another session’s, with 403 csrf_failed and changes nothing', async () => {
    const mine = await session();
    const theirs = await session();
    const before = await snapshotTables(fixture().database.config);
    for (const headers of [
      { cookie: mine.cookie } as Record<string, string>,
      { cookie: mine.cookie, 'x-csrf-token': 'forged' },
      { cookie: mine.cookie, 'x-csrf-token': theirs.csrf },
    ]) {
      const response = await createKey(headers);
      expect(response.statusCode).toBe(403);
      expect(problemOf(response).code).toBe('csrf_failed');
    }
    expect(await snapshotTables(fixture().database.config)).toEqual(before);
  });

  it('needs no CSRF token for bearer-token writes, which a browser never sends on its own', async () => {
    const token = (
      await fixture().app.inject({
        method: 'POST',
        url: '/auth/v1/token',
        payload: { email: fixture().email, password: PASSWORD },
      })
    ).json<{ access_token: string }>().access_token;
    expect((await createKey({ authorization: `Bearer ${token}` })).statusCode).toBe(201);
  });

  it('revokes the session on sign-out: a copy of the cookie stops working, other sessions do not', async () => {
    const signedOut = await session();
    const other = await session();
    const response = await signOut({ cookie: signedOut.cookie, 'x-csrf-token': signedOut.csrf });
    expect(response.statusCode).toBe(204);
    const replayed = await listWorkspaces(signedOut.cookie);
    expect(problemOf(replayed)).toMatchObject({ code: 'token_revoked', resolution: 'Sign in again.' });
    const still = await listWorkspaces(other.cookie);
    expect(still.statusCode).toBe(200);
  });

  it('never lets the session cookie stand in for a brand read key on the read operation', async () => {
    const { cookie } = await session();
    const response = await fixture().app.inject({
      method: 'POST',
      url: '/functions/v1/brand-agent',
      headers: { cookie },
      payload: { action: 'context', workspace_id: fixture().workspaceId },
    });
    expect(problemOf(response).code).toBe('missing_key');
  });
});
