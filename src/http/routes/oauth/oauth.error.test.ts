import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, problemOf, unchanged, useFixture } from '#test/support/http-fixture.js';
import {
  authorizationParams,
  authorize,
  connect,
  connectedTokens,
  exchange,
  form,
  ISSUER,
  pkce,
  REDIRECT_URI,
  refresh,
  registerClient,
} from '#test/support/fixtures/oauth.js';

/** An RFC 6749 §5.2 error: its status and `error`, as `400 invalid_grant`. */
function oauthOutcome(response: LightMyRequestResponse): string {
  return `${String(response.statusCode)} ${response.json<{ error: string }>().error}`;
}

describeEachBackend('OAuth authorization server (/oauth): errors', (backend) => {
  const fixture = useFixture(backend);

  it.each([
    ['no redirect URIs', 'invalid_redirect_uri', { redirect_uris: [] }],
    [
      'an http redirect URI off loopback',
      'invalid_redirect_uri',
      { redirect_uris: ['http://app.example.com/cb'] },
    ],
    [
      'a redirect URI with a fragment',
      'invalid_redirect_uri',
      { redirect_uris: ['https://app.example.com/cb#x'] },
    ],
    ['a custom scheme', 'invalid_redirect_uri', { redirect_uris: ['myapp://callback'] }],
    ['no redirect_uris field', 'invalid_client_metadata', { client_name: 'x' }],
    [
      'a client secret method',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
    ],
    [
      'the implicit grant',
      'invalid_client_metadata',
      { redirect_uris: [REDIRECT_URI], grant_types: ['implicit'] },
    ],
  ])('refuses to register a client with %s (400 %s) and stores nothing', async (_name, error, body) => {
    const f = fixture();
    const response = await unchanged(f, () => call(f, undefined, 'POST', '/oauth/register', { body }));
    expect(oauthOutcome(response)).toBe(`400 ${error}`);
    expect(response.json<{ error_description: string }>().error_description).not.toBe('');
  });

  it('answers a bad client or redirect URI with 400 invalid_authorization_request, never a redirect', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const { challenge } = pkce();
    for (const overrides of [
      { client_id: undefined },
      { client_id: 'oc_unknown' },
      { redirect_uri: undefined },
      { redirect_uri: 'https://evil.example.com/callback' },
    ]) {
      const response = await authorize(f, authorizationParams(clientId, challenge, overrides));
      expect(response.statusCode).toBe(400);
      expect(problemOf(response).code).toBe('invalid_authorization_request');
      expect(response.headers.location).toBeUndefined();
    }
  });

  it.each([
    ['response_type=token', 'unsupported_response_type', { response_type: 'token' }],
    ['no code_challenge', 'invalid_request', { code_challenge: undefined }],
    ['code_challenge_method=plain', 'invalid_request', { code_challenge_method: 'plain' }],
    ['no code_challenge_method', 'invalid_request', { code_challenge_method: undefined }],
    ['a challenge that is no S256 digest', 'invalid_request', { code_challenge: 'short' }],
    ['another resource', 'invalid_target', { resource: 'https://other.example.com/mcp' }],
    ['an unknown scope', 'invalid_scope', { scope: 'brand:read admin' }],
  ])(
    'redirects a request with %s back to the client with error=%s, state and iss',
    async (_name, error, overrides) => {
      const f = fixture();
      const clientId = await registerClient(f);
      const response = await authorize(f, authorizationParams(clientId, pkce().challenge, overrides));
      expect(response.statusCode).toBe(302);
      const location = new URL(String(response.headers.location));
      expect(`${location.origin}${location.pathname}`).toBe(REDIRECT_URI);
      expect(location.searchParams.get('error')).toBe(error);
      expect(location.searchParams.get('state')).toBe('state-123');
      expect(location.searchParams.get('iss')).toBe(ISSUER);
    },
  );

  it('refuses token requests without a grant type, of another grant type, or missing a parameter', async () => {
    const f = fixture();
    expect(oauthOutcome(await form(f, '/oauth/token', {}))).toBe('400 invalid_request');
    expect(oauthOutcome(await form(f, '/oauth/token', { grant_type: 'client_credentials' }))).toBe(
      '400 unsupported_grant_type',
    );
    const connected = await connect(f, f.owner.token, f.workspaceId);
    expect(oauthOutcome(await exchange(f, connected, { code_verifier: '' }))).toBe('400 invalid_request');
    expect(
      oauthOutcome(
        await form(f, '/oauth/token', { grant_type: 'refresh_token', client_id: connected.clientId }),
      ),
    ).toBe('400 invalid_request');
  });

  it('refuses a parameter sent twice with invalid_request', async () => {
    const f = fixture();
    const twice = await f.app.inject({
      method: 'POST',
      url: '/oauth/token',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'grant_type=authorization_code&grant_type=refresh_token',
    });
    expect(oauthOutcome(twice)).toBe('400 invalid_request');
  });

  it('refuses an unknown code, an expired one (after 60 s), and a code with another redirect URI', async () => {
    const f = fixture();
    const connected = await connect(f, f.owner.token, f.workspaceId);
    expect(oauthOutcome(await exchange(f, connected, { code: 'oac_unknown' }))).toBe('400 invalid_grant');
    const mismatched = await connect(f, f.owner.token, f.workspaceId);
    expect(
      oauthOutcome(await exchange(f, mismatched, { redirect_uri: 'http://127.0.0.1:33418/other' })),
    ).toBe('400 invalid_grant');
    f.clock.advance(61_000);
    expect(oauthOutcome(await exchange(f, connected))).toBe('400 invalid_grant');
  });

  it('refuses unknown and malformed access tokens with invalid_token', async () => {
    const verify = (token: string) => fixture().app.services.oauthTokens.verify(token);
    for (const token of ['oat_unknown', 'ort_not-an-access-token', 'brk_x', '']) {
      await expect(verify(token)).rejects.toMatchObject({ code: 'invalid_token' });
    }
  });

  it('refuses a refresh token with an access token in its place', async () => {
    const f = fixture();
    const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    expect(oauthOutcome(await refresh(f, connected.clientId, tokens.access_token))).toBe('400 invalid_grant');
  });

  it('refuses a refresh asking for a scope beyond the grant with invalid_scope', async () => {
    const f = fixture();
    const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    const wider = await form(f, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: connected.clientId,
      scope: 'campaigns:write',
    });
    expect(oauthOutcome(wider)).toBe('400 invalid_scope');
  });

  it('refuses a revocation request without a token', async () => {
    expect(oauthOutcome(await form(fixture(), '/oauth/revoke', {}))).toBe('400 invalid_request');
  });

  it('answers 401 invalid_client to a client_id it does not know, at both grants, and spends no code', async () => {
    const f = fixture();
    const connected = await connect(f, f.owner.token, f.workspaceId);
    expect(oauthOutcome(await exchange(f, connected, { client_id: 'oc_unknown' }))).toBe(
      '401 invalid_client',
    );
    expect(oauthOutcome(await refresh(f, 'oc_unknown', 'ort_whatever'))).toBe('401 invalid_client');
    expect((await exchange(f, connected)).statusCode).toBe(200);
  });

  // Last: it moves the shared clock past every session of the fixture.
  it('expires access tokens after an hour and refresh tokens after 30 days', async () => {
    const f = fixture();
    const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    f.clock.advance(3600 * 1000);
    await expect(f.app.services.oauthTokens.verify(tokens.access_token)).rejects.toMatchObject({
      code: 'invalid_token',
      detail: expect.stringContaining('expired') as string,
    });
    f.clock.advance(30 * 24 * 3600 * 1000);
    expect(oauthOutcome(await refresh(f, connected.clientId, tokens.refresh_token))).toBe(
      '400 invalid_grant',
    );
  });
});
