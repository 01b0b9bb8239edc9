import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redactKeys } from '../../../core/secret-keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, call, problemOf, useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';
import {
  authorizationParams,
  authorize,
  connect,
  connectedTokens,
  decide,
  exchange,
  form,
  pkce,
  REDIRECT_URI,
  redirectOf,
  refresh,
  registerClient,
  type TokenPair,
} from '#test/support/fixtures/oauth.js';

function oauthOutcome(response: LightMyRequestResponse): string {
  return `${String(response.statusCode)} ${response.json<{ error: string }>().error}`;
}

describeEachBackend('OAuth authorization server (/oauth): security', (backend) => {
  const fixture = useFixture(backend);

  describe('codes', () => {
    it('takes a code once: a replay is refused and revokes the tokens the first use issued', async () => {
      const f = fixture();
      const connected = await connect(f, f.owner.token, f.workspaceId);
      const first = await exchange(f, connected);
      expect(first.statusCode).toBe(200);
      const { access_token: accessToken, refresh_token: refreshToken } = first.json<TokenPair>();
      expect(oauthOutcome(await exchange(f, connected))).toBe('400 invalid_grant');
      await expect(f.app.services.oauthTokens.verify(accessToken)).rejects.toMatchObject({
        code: 'invalid_token',
      });
      expect(oauthOutcome(await refresh(f, connected.clientId, refreshToken))).toBe('400 invalid_grant');
      const revoked = (await auditLog(f)).find((event) => event.action === 'oauth_grant.revoked');
      expect(revoked?.details).toMatchObject({ reason: 'code_replayed' });
      expect(revoked?.actor).toEqual({ type: 'system' });
    });

    it('refuses PKCE done wrong: another flow’s verifier, a verifier too short, none', async () => {
      const f = fixture();
      const connected = await connect(f, f.owner.token, f.workspaceId);
      expect(oauthOutcome(await exchange(f, connected, { code_verifier: pkce().verifier }))).toBe(
        '400 invalid_grant',
      );
      const short = await connect(f, f.owner.token, f.workspaceId);
      expect(oauthOutcome(await exchange(f, short, { code_verifier: 'abc' }))).toBe('400 invalid_grant');
      const none = await connect(f, f.owner.token, f.workspaceId);
      expect(oauthOutcome(await exchange(f, none, { code_verifier: '' }))).toBe('400 invalid_request');
    });

    it('refuses a code redeemed by another client than the one it was issued to', async () => {
      const f = fixture();
      const connected = await connect(f, f.owner.token, f.workspaceId);
      const other = await registerClient(f);
      expect(oauthOutcome(await exchange(f, connected, { client_id: other }))).toBe('400 invalid_grant');
    });

    it('refuses a code exchanged for another resource', async () => {
      const f = fixture();
      const connected = await connect(f, f.owner.token, f.workspaceId);
      expect(oauthOutcome(await exchange(f, connected, { resource: 'https://other.example.com/mcp' }))).toBe(
        '400 invalid_target',
      );
    });
  });

  describe('redirect URIs', () => {
    it.each([
      ['another path', 'http://127.0.0.1:33418/callback/evil'],
      ['another port', 'http://127.0.0.1:33419/callback'],
      ['a trailing slash', 'http://127.0.0.1:33418/callback/'],
      ['an added query', 'http://127.0.0.1:33418/callback?x=1'],
      ['another host', 'https://evil.example.com/callback'],
    ])(
      'answers a redirect URI differing by %s with 400 and no redirect, at /oauth/authorize and consent',
      async (_name, uri) => {
        const f = fixture();
        const clientId = await registerClient(f);
        const params = authorizationParams(clientId, pkce().challenge, { redirect_uri: uri });
        const response = await authorize(f, params);
        expect(response.statusCode).toBe(400);
        expect(response.headers.location).toBeUndefined();
        const consent = await decide(f, f.owner.token, params, { workspace_id: f.workspaceId });
        expect(problemOf(consent).code).toBe('invalid_authorization_request');
      },
    );
  });

  describe('refresh tokens', () => {
    it('revokes the grant when a refresh token is used twice: the tokens rotated from it stop working too', async () => {
      const f = fixture();
      const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
      const rotated = (await refresh(f, connected.clientId, tokens.refresh_token)).json<TokenPair>();
      expect(oauthOutcome(await refresh(f, connected.clientId, tokens.refresh_token))).toBe(
        '400 invalid_grant',
      );
      await expect(f.app.services.oauthTokens.verify(rotated.access_token)).rejects.toMatchObject({
        code: 'invalid_token',
      });
      expect(oauthOutcome(await refresh(f, connected.clientId, rotated.refresh_token))).toBe(
        '400 invalid_grant',
      );
      const revoked = (await auditLog(f)).find((event) => event.action === 'oauth_grant.revoked');
      expect(revoked?.details).toMatchObject({ reason: 'refresh_token_reused' });
    });

    it('refuses a refresh token presented by another client, and does not revoke on its behalf', async () => {
      const f = fixture();
      const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
      const other = await registerClient(f);
      expect(oauthOutcome(await refresh(f, other, tokens.refresh_token))).toBe('400 invalid_grant');
      const revoke = await form(f, '/oauth/revoke', { token: tokens.access_token, client_id: other });
      expect(revoke.statusCode).toBe(200);
      await expect(f.app.services.oauthTokens.verify(tokens.access_token)).resolves.toMatchObject({
        clientId: connected.clientId,
      });
    });
  });

  describe('workspaces and roles', () => {
    it('binds a grant to its workspace: verify answers that workspace only', async () => {
      const f = fixture();
      const { tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
      const verified = await f.app.services.oauthTokens.verify(tokens.access_token);
      expect(verified.workspaceId).toBe(f.workspaceId);
      expect(verified.workspaceId).not.toBe(f.otherWorkspaceId);
    });

    it('refuses consent for a workspace the user is not a member of (403), and one that does not exist (404)', async () => {
      const f = fixture();
      const clientId = await registerClient(f);
      const params = authorizationParams(clientId, pkce().challenge);
      const foreign = await decide(f, f.owner.token, params, { workspace_id: f.otherWorkspaceId });
      expect(problemOf(foreign).code).toBe('workspace_forbidden');
      const missing = await decide(f, f.owner.token, params, { workspace_id: 'ws_nowhere' });
      expect(problemOf(missing).code).toBe('workspace_not_found');
    });

    it('ends what a grant may do when its user leaves the workspace', async () => {
      const f = fixture();
      const { user, token } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      const { connected, tokens } = await connectedTokens(f, token, f.workspaceId);
      await f.store.workspaces.removeMember(f.workspaceId, user.id);
      await expect(f.app.services.oauthTokens.verify(tokens.access_token)).rejects.toMatchObject({
        code: 'invalid_token',
      });
      expect(oauthOutcome(await refresh(f, connected.clientId, tokens.refresh_token))).toBe(
        '400 invalid_grant',
      );
    });
  });

  describe('secrets', () => {
    it('never logs or stores a code, access token or refresh token, and redacts their shapes', async () => {
      const f = fixture();
      const { connected, tokens } = await connectedTokens(f, f.owner.token, f.workspaceId);
      await refresh(f, connected.clientId, tokens.refresh_token);
      const logs = f.logs.join('');
      for (const secret of [connected.code, tokens.access_token, tokens.refresh_token])
        expect(logs).not.toContain(secret.slice(4));
      expect(redactKeys(`a ${tokens.access_token} b ${tokens.refresh_token} c ${connected.code}`)).toBe(
        'a oat_[REDACTED] b ort_[REDACTED] c oac_[REDACTED]',
      );
      const stored = await f.store.oauth.findToken(tokens.access_token);
      expect(stored).toBeUndefined();
    });
  });

  describe('client metadata documents', () => {
    it('refuses a client_id URL on a loopback or private address without fetching it (400, no redirect)', async () => {
      const f = fixture();
      for (const clientId of [
        'https://127.0.0.1/client.json',
        'https://10.0.0.1/client.json',
        'https://localhost/c',
      ]) {
        const response = await authorize(f, authorizationParams(clientId, pkce().challenge));
        expect(response.statusCode).toBe(400);
        expect(problemOf(response).code).toBe('invalid_authorization_request');
      }
    });
  });
});

/** A client serving its metadata document on loopback: allowed only as WEBHOOK_ALLOW_PRIVATE_URLS allows webhooks there. */
describeEachBackend('OAuth client metadata documents (WEBHOOK_ALLOW_PRIVATE_URLS=true)', (backend) => {
  const fixture = useFixture(backend, { app: { webhooks: { allowPrivateUrls: true } } });
  const documents = new Map<string, unknown>();
  let server: Server;
  let base = '';

  beforeAll(async () => {
    server = createServer((request, response) => {
      const document = documents.get(request.url ?? '');
      if (document === undefined) {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('fetches the document a client_id URL names, and runs the flow with it', async () => {
    const f = fixture();
    const clientId = `${base}/agent.json`;
    documents.set('/agent.json', {
      client_id: clientId,
      client_name: 'Doc Agent',
      redirect_uris: [REDIRECT_URI],
    });
    const { verifier, challenge } = pkce();
    const params = authorizationParams(clientId, challenge);
    expect((await authorize(f, params)).statusCode).toBe(302);
    const described = await call(
      f,
      f.owner.token,
      'GET',
      `/api/v1/oauth/authorization?${new URLSearchParams(params).toString()}`,
    );
    expect(described.json<{ client: unknown }>().client).toEqual({
      id: clientId,
      name: 'Doc Agent',
      redirect_host: '127.0.0.1:33418',
      source: 'metadata_document',
    });
    const code =
      redirectOf(await decide(f, f.owner.token, params, { workspace_id: f.workspaceId })).searchParams.get(
        'code',
      ) ?? '';
    const response = await exchange(f, { clientId, verifier, params, code });
    expect(response.statusCode).toBe(200);
  });

  it('refuses a document naming another client_id, or one not found', async () => {
    const f = fixture();
    const clientId = `${base}/impostor.json`;
    documents.set('/impostor.json', { client_id: 'https://claude.ai/client', redirect_uris: [REDIRECT_URI] });
    for (const id of [clientId, `${base}/missing.json`]) {
      const response = await authorize(f, authorizationParams(id, pkce().challenge));
      expect(response.statusCode).toBe(400);
      expect(problemOf(response).code).toBe('invalid_authorization_request');
    }
  });
});
