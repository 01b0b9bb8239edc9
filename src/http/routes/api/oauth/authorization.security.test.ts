import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { createPersonalToken } from '../../../../services/auth/tokens.js';
import { type ConsoleAccount, consoleAccount, consoleSessionApi } from '#test/support/fixtures/auth.js';
import { OAUTH_SCOPES, SCOPE_PERMISSIONS } from '../../../../core/oauth.js';
import { can } from '../../../../core/roles.js';
import {
  type OAuthAuthorization,
  authorizationParams,
  decide,
  describeConsent,
  pkce,
  redirectOf,
  registerClient,
} from '#test/support/fixtures/oauth.js';

describeEachBackend('OAuth consent (/api/v1/oauth/authorization): security', (backend) => {
  const fixture = useFixture<ConsoleAccount>(backend, { extend: consoleAccount });
  const { session } = consoleSessionApi(fixture);

  it('offers and grants each role exactly the scopes its permissions hold (docs/oauth.md "Scopes")', async () => {
    const f = fixture();
    const params = authorizationParams(await registerClient(f), pkce().challenge, { scope: undefined });
    for (const user of [f.owner, f.admin, f.member]) {
      const [workspace] = (await describeConsent(f, user.token, params)).json<OAuthAuthorization>()
        .workspaces;
      const role = workspace?.role ?? 'member';
      const expected = OAUTH_SCOPES.filter((scope) =>
        SCOPE_PERMISSIONS[scope].every((permission) => can(role, permission)),
      );
      expect(workspace?.scopes).toEqual(expected);
      const allowed = await decide(f, user.token, params, { workspace_id: f.workspaceId, scopes: expected });
      expect(allowed.statusCode).toBe(200);
    }
  });

  it('refuses anyone not signed in, keys, and another workspace', async () => {
    const f = fixture();
    const params = authorizationParams(await registerClient(f), pkce().challenge);
    const query = new URLSearchParams(params).toString();
    expect(outcome(await call(f, undefined, 'GET', `/api/v1/oauth/authorization?${query}`))).toBe(
      '401 missing_token',
    );
    expect(outcome(await call(f, f.brandKey, 'GET', `/api/v1/oauth/authorization?${query}`))).toBe(
      '403 brand_key_not_allowed',
    );
    expect(outcome(await call(f, f.apiKey, 'GET', `/api/v1/oauth/authorization?${query}`))).toBe(
      '403 api_key_not_allowed',
    );
    await refused(
      f,
      () => decide(f, f.otherOwner.token, params, { workspace_id: f.workspaceId }),
      '403 workspace_forbidden',
    );
  });

  it('refuses consent given with a personal access token: only a signed-in user connects apps', async () => {
    const f = fixture();
    const pat = await createPersonalToken(f.deps, f.owner.user, { name: 'script', expiresInDays: 7 });
    const params = authorizationParams(await registerClient(f), pkce().challenge);
    await refused(
      f,
      () => decide(f, pat.token, params, { workspace_id: f.workspaceId }),
      '403 consent_requires_session',
    );
  });

  it('needs the CSRF token with the session cookie, as every console write does', async () => {
    const f = fixture();
    const { cookie, csrf } = await session();
    const params = authorizationParams(await registerClient(f), pkce().challenge);
    const body = JSON.stringify({
      ...params,
      workspace_id: f.workspaceId,
      scopes: ['brand:read'],
      decision: 'allow',
    });
    const send = (headers: Record<string, string>) =>
      f.app.inject({
        method: 'POST',
        url: '/api/v1/oauth/authorization',
        headers: { cookie, 'content-type': 'application/json', ...headers },
        payload: body,
      });
    await refused(f, () => send({}), '403 csrf_failed');
    await refused(f, () => send({ 'x-csrf-token': 'forged' }), '403 csrf_failed');
    const allowed = await send({ 'x-csrf-token': csrf });
    expect(redirectOf(allowed).searchParams.get('code')).toMatch(/^oac_/);
    const described = await f.app.inject({
      method: 'GET',
      url: `/api/v1/oauth/authorization?${new URLSearchParams(params).toString()}`,
      headers: { cookie },
    });
    expect(described.statusCode).toBe(200);
  });

  it('never sends the browser to a redirect URI the app did not register, even for Deny', async () => {
    const f = fixture();
    const params = authorizationParams(await registerClient(f), pkce().challenge, {
      redirect_uri: 'https://evil.example.com/cb',
    });
    await refused(
      f,
      () => decide(f, f.owner.token, params, { workspace_id: f.workspaceId, decision: 'deny' }),
      '400 invalid_authorization_request',
    );
    const described = await describeConsent(f, f.owner.token, params);
    expect(described.statusCode).toBe(400);
  });
});
