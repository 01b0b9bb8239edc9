import {
  OAuthClientInformationFullSchema,
  OAuthMetadataSchema,
  OAuthTokensSchema,
} from '@modelcontextprotocol/core';
import {
  auth,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { expect, it } from 'vitest';
import { listenOnLoopback } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, call, useFixture } from '#test/support/http-fixture.js';
import {
  authorizationParams,
  authorize,
  connect,
  connectedTokens,
  decide,
  exchange,
  form,
  ISSUER,
  pkce,
  REDIRECT_URI,
  redirectOf,
  refresh,
  registerClient,
  type TokenPair,
} from '#test/support/fixtures/oauth.js';

describeEachBackend('OAuth authorization server (/oauth): the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('publishes RFC 8414 metadata that the MCP SDK reads: PKCE S256, public clients, metadata documents', async () => {
    const response = await call(fixture(), undefined, 'GET', '/.well-known/oauth-authorization-server');
    expect(response.statusCode).toBe(200);
    const metadata = OAuthMetadataSchema.parse(response.json());
    expect(metadata).toMatchObject({
      issuer: ISSUER,
      authorization_endpoint: `${ISSUER}/oauth/authorize`,
      token_endpoint: `${ISSUER}/oauth/token`,
      registration_endpoint: `${ISSUER}/oauth/register`,
      revocation_endpoint: `${ISSUER}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      scopes_supported: ['brand:read', 'campaigns:read', 'campaigns:write'],
    });
  });

  it('registers a public client with 201, in a shape the MCP SDK reads', async () => {
    const response = await call(fixture(), undefined, 'POST', '/oauth/register', {
      body: {
        client_name: 'Claude',
        redirect_uris: [REDIRECT_URI, 'https://claude.ai/api/mcp/auth_callback'],
      },
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const client = OAuthClientInformationFullSchema.parse(response.json());
    expect(client).toMatchObject({
      client_id: expect.stringMatching(/^oc_/) as string,
      client_name: 'Claude',
      token_endpoint_auth_method: 'none',
      redirect_uris: [REDIRECT_URI, 'https://claude.ai/api/mcp/auth_callback'],
      response_types: ['code'],
    });
  });

  it('sends a valid authorization request on to the consent page with its query unchanged', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const params = authorizationParams(clientId, pkce().challenge);
    const response = await authorize(f, params);
    expect(response.statusCode).toBe(302);
    expect(response.headers.location).toBe(`/connect?${new URLSearchParams(params).toString()}`);
  });

  it('defaults resource to <PUBLIC_URL>/mcp and scope to every scope when a request leaves them out', async () => {
    const f = fixture();
    const clientId = await registerClient(f);
    const params = authorizationParams(clientId, pkce().challenge, { resource: undefined, scope: undefined });
    expect((await authorize(f, params)).statusCode).toBe(302);
    const { tokens } = await connectedTokens(f, f.owner.token, f.workspaceId, {
      resource: undefined,
      scope: undefined,
    });
    expect(tokens.scope).toBe('brand:read campaigns:read campaigns:write');
  });

  it('runs the code flow: consent returns code, state and iss; the code and verifier get tokens for the workspace', async () => {
    const f = fixture();
    const connected = await connect(f, f.member.token, f.workspaceId);
    const response = await exchange(f, connected);
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const tokens = OAuthTokensSchema.parse(response.json());
    expect(tokens).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'brand:read campaigns:read',
      access_token: expect.stringMatching(/^oat_[\w-]{43}$/) as string,
      refresh_token: expect.stringMatching(/^ort_[\w-]{43}$/) as string,
    });
    const verified = await f.app.services.oauthTokens.verify(tokens.access_token);
    expect(verified).toMatchObject({
      userId: f.member.user.id,
      workspaceId: f.workspaceId,
      clientId: connected.clientId,
      scopes: ['brand:read', 'campaigns:read'],
    });
  });

  it('rotates refresh tokens: each use answers a new pair, and the new access token works', async () => {
    const f = fixture();
    const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    const first = await refresh(f, connected.clientId, tokens.refresh_token);
    expect(first.statusCode).toBe(200);
    const rotated = first.json<TokenPair>();
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.access_token).not.toBe(tokens.access_token);
    const second = await refresh(f, connected.clientId, rotated.refresh_token);
    expect(second.statusCode).toBe(200);
    await expect(
      f.app.services.oauthTokens.verify(second.json<TokenPair>().access_token),
    ).resolves.toMatchObject({
      workspaceId: f.workspaceId,
    });
  });

  it('narrows the scope on refresh when asked, never widens it', async () => {
    const f = fixture();
    const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    const narrowed = await form(f, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token,
      client_id: connected.clientId,
      scope: 'brand:read',
    });
    expect(narrowed.json<TokenPair>().scope).toBe('brand:read');
  });

  it('revokes the connection at /oauth/revoke with 200: its tokens stop working, audited', async () => {
    const f = fixture();
    const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    const response = await form(f, '/oauth/revoke', {
      token: tokens.refresh_token,
      token_type_hint: 'refresh_token',
      client_id: connected.clientId,
    });
    expect(response.statusCode).toBe(200);
    await expect(f.app.services.oauthTokens.verify(tokens.access_token)).rejects.toMatchObject({
      code: 'invalid_token',
    });
    expect((await refresh(f, connected.clientId, tokens.refresh_token)).statusCode).toBe(400);
    const events = await auditLog(f);
    expect(events.map((event) => event.action)).toContain('oauth_grant.revoked');
    expect(events.map((event) => event.action)).toContain('oauth_grant.created');
  });

  it('answers 200 to revoking an unknown token, as RFC 7009 says', async () => {
    const response = await form(fixture(), '/oauth/revoke', { token: 'ort_unknown' });
    expect(response.statusCode).toBe(200);
  });

  it('stamps the grant’s last use once a minute at most', async () => {
    const f = fixture();
    const { tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
    const verified = await f.app.services.oauthTokens.verify(tokens.access_token);
    const grant = await f.store.oauth.getGrant(verified.grantId);
    expect(grant?.lastUsedAt).toBe(new Date(f.clock.now()).toISOString());
    const stamped = grant?.lastUsedAt;
    f.clock.advance(30_000);
    await f.app.services.oauthTokens.verify(tokens.access_token);
    expect((await f.store.oauth.getGrant(verified.grantId))?.lastUsedAt).toBe(stamped);
    f.clock.advance(31_000);
    await f.app.services.oauthTokens.verify(tokens.access_token);
    expect((await f.store.oauth.getGrant(verified.grantId))?.lastUsedAt).toBe(
      new Date(f.clock.now()).toISOString(),
    );
  });

  it('answers browser-based clients from any origin: metadata, registration, tokens and their preflights', async () => {
    const f = fixture();
    const metadata = await call(f, undefined, 'GET', '/.well-known/oauth-authorization-server');
    expect(metadata.headers['access-control-allow-origin']).toBe('*');
    const preflight = await f.app.inject({
      method: 'OPTIONS',
      url: '/oauth/token',
      headers: { origin: 'http://localhost:6274', 'access-control-request-method': 'POST' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
    expect(preflight.headers['access-control-allow-methods']).toBe('POST');
    const refused = await form(f, '/oauth/token', { grant_type: 'refresh_token' });
    expect(refused.headers['access-control-allow-origin']).toBe('*');
  });
});

/** The official MCP SDK client's own OAuth flow (`auth`), against the service listening on loopback. */
describeEachBackend('OAuth authorization server: the MCP SDK client’s flow', (backend) => {
  const fixture = useFixture(backend);

  /** An in-memory OAuthClientProvider, as an MCP client keeps its registration, verifier and tokens. */
  function memoryProvider() {
    const stored: {
      client?: OAuthClientInformationMixed;
      tokens?: OAuthTokens;
      verifier?: string;
      authorizationUrl?: URL;
      discovery?: OAuthDiscoveryState;
    } = {};
    const provider: OAuthClientProvider = {
      redirectUrl: REDIRECT_URI,
      clientMetadata: {
        client_name: 'SDK Agent',
        redirect_uris: [REDIRECT_URI],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
      state: () => 'sdk-state',
      clientInformation: () => stored.client,
      saveClientInformation: (client) => {
        stored.client = client;
      },
      tokens: () => stored.tokens,
      saveTokens: (tokens) => {
        stored.tokens = tokens;
      },
      redirectToAuthorization: (url) => {
        stored.authorizationUrl = url;
      },
      saveCodeVerifier: (verifier) => {
        stored.verifier = verifier;
      },
      codeVerifier: () => stored.verifier ?? '',
      saveDiscoveryState: (state) => {
        stored.discovery = state;
      },
      discoveryState: () => stored.discovery,
    };
    return { provider, stored };
  }

  it('discovers, registers, authorizes with consent, exchanges the code and refreshes', async () => {
    const f = fixture();
    const port = await listenOnLoopback(f.app);
    const serverUrl = `http://127.0.0.1:${String(port)}/mcp`;
    const { provider, stored } = memoryProvider();
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    const authorizationUrl = stored.authorizationUrl;
    if (!authorizationUrl) throw new Error('no authorization URL');
    const toConsent = await f.app.inject({
      method: 'GET',
      url: `${authorizationUrl.pathname}${authorizationUrl.search}`,
    });
    expect(toConsent.statusCode).toBe(302);
    const params = Object.fromEntries(new URL(String(toConsent.headers.location), 'http://x').searchParams);
    expect(params).toMatchObject({ resource: serverUrl, code_challenge_method: 'S256', state: 'sdk-state' });
    const redirect = redirectOf(await decide(f, f.owner.token, params, { workspace_id: f.workspaceId }));
    expect(
      await auth(provider, {
        serverUrl,
        authorizationCode: redirect.searchParams.get('code') ?? '',
        iss: redirect.searchParams.get('iss') ?? '',
      }),
    ).toBe('AUTHORIZED');
    const first = stored.tokens;
    expect(first?.access_token).toMatch(/^oat_/);
    await expect(f.app.services.oauthTokens.verify(first?.access_token ?? '')).resolves.toMatchObject({
      workspaceId: f.workspaceId,
    });
    // With tokens stored, auth() refreshes them: the rotated pair replaces the first.
    expect(await auth(provider, { serverUrl })).toBe('AUTHORIZED');
    expect(stored.tokens?.refresh_token).toMatch(/^ort_/);
    expect(stored.tokens?.refresh_token).not.toBe(first?.refresh_token);
  });
});
