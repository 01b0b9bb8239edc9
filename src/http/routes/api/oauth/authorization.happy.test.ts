import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, useFixture } from '#test/support/http-fixture.js';
import {
  authorizationParams,
  decide,
  describeConsent,
  ISSUER,
  type OAuthAuthorization,
  pkce,
  redirectOf,
  REDIRECT_URI,
  registerClient,
} from '#test/support/fixtures/oauth.js';

describeEachBackend('OAuth consent (/api/v1/oauth/authorization): the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('describes the request: the app, its redirect host, the scopes asked, and what each workspace role may grant', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const params = authorizationParams(clientId, pkce().challenge, {
      scope: 'brand:read campaigns:write',
    });
    const response = await describeConsent(f, f.member.token, params);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.json<OAuthAuthorization>()).toEqual({
      client: { id: clientId, name: 'Test Agent', redirect_host: '127.0.0.1:33418', source: 'registered' },
      scopes: ['brand:read', 'campaigns:write'],
      workspaces: [
        { id: f.workspaceId, name: 'Acme Coffee', role: 'member', scopes: ['brand:read', 'campaigns:write'] },
      ],
    });
  });

  it('lists every scope when the request asks for none', async () => {
    const f = fixture();
    const params = authorizationParams(await registerClient(f), pkce().challenge, { scope: undefined });
    const body = (await describeConsent(f, f.owner.token, params)).json<OAuthAuthorization>();
    expect(body.scopes).toEqual(['brand:read', 'campaigns:read', 'campaigns:write']);
  });

  it('answers Allow with the redirect URI carrying code, state and iss, and records the grant', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const params = authorizationParams(clientId, pkce().challenge);
    const redirect = redirectOf(await decide(f, f.admin.token, params, { workspace_id: f.workspaceId }));
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('code')).toMatch(/^oac_[\w-]{43}$/);
    expect(redirect.searchParams.get('state')).toBe('state-123');
    expect(redirect.searchParams.get('iss')).toBe(ISSUER);
    const created = (await auditLog(f)).find((event) => event.action === 'oauth_grant.created');
    expect(created).toMatchObject({
      actor: { type: 'user', id: f.admin.user.id },
      details: { client_id: clientId, client_name: 'Test Agent', scopes: 'brand:read campaigns:read' },
    });
  });

  it('grants only the scopes the user chose of those asked', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const params = authorizationParams(clientId, pkce().challenge);
    await decide(f, f.owner.token, params, { workspace_id: f.workspaceId, scopes: ['brand:read'] });
    const grants = await f.store.oauth.listGrants(f.workspaceId);
    expect(grants.find((grant) => grant.clientId === clientId)?.scopes).toEqual(['brand:read']);
  });

  it('answers Deny with error=access_denied, state and iss, and grants nothing', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const params = authorizationParams(clientId, pkce().challenge);
    const redirect = redirectOf(
      await decide(f, f.owner.token, params, { workspace_id: f.workspaceId, decision: 'deny' }),
    );
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('code')).toBeNull();
    expect(redirect.searchParams.get('state')).toBe('state-123');
    expect(redirect.searchParams.get('iss')).toBe(ISSUER);
    const grants = await f.store.oauth.listGrants(f.workspaceId);
    expect(grants.some((grant) => grant.clientId === clientId)).toBe(false);
  });
});
