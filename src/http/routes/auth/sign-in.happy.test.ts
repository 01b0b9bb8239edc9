import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';
import { useFixture } from '#test/support/http-fixture.js';
import {
  PASSWORD,
  type IssuedSession,
  SIGN_IN_LIMITS,
  signInAccounts,
  signInApi,
} from '#test/support/fixtures/auth.js';

describeEachBackend('POST /auth/v1/token: sign-in, the happy paths', (backend) => {
  const fixture = useFixture(backend, { app: { signInLimits: SIGN_IN_LIMITS }, extend: signInAccounts });
  const { signIn } = signInApi();

  it('exchanges the right email and password for a bearer token that works on the API', async () => {
    const { app, emails, signInWorkspaceId } = fixture();
    const response = await signIn(app, { email: emails.alice, password: PASSWORD });
    expect(response.statusCode).toBe(200);
    const session = response.json<IssuedSession>();
    expect(Object.keys(session).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(session.token_type).toBe('bearer');
    expect(session.expires_in).toBe(3600);
    expect(session.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const workspaces = await app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: bearer(session.access_token),
    });
    expect(workspaces.statusCode).toBe(200);
    expect(workspaces.json()).toEqual({
      workspaces: [
        {
          id: signInWorkspaceId,
          name: 'Sign-in Co',
          created_at: expect.any(String) as string,
          role: 'owner',
        },
      ],
    });
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const response = await signIn(fixture().app, {
      email: `  ${fixture().emails.alice.toUpperCase()} `,
      password: PASSWORD,
    });
    expect(response.statusCode).toBe(200);
  });
});
