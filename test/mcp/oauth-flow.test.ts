import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  discoverAuthorizationServerMetadata,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  refreshAuthorization,
  StreamableHTTPClientTransport,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  UnauthorizedError,
} from '@modelcontextprotocol/client';
import { type Browser, chromium } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/accounts/workspaces.js';
import { hashPassword } from '../../src/services/auth/passwords.js';
import { issueSession } from '../../src/services/auth/tokens.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { listenOnLoopback, startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { CHROMIUM_PATH, CONSOLE_DIR, describeInBrowser, WAIT_MS } from '../browser/browser-harness.js';

/*
 * The whole OAuth flow of /mcp as an AI client runs it (docs/connect-ai-client.md): the official SDK client
 * discovers the authorization server from the 401, registers itself, sends the person's browser (Chromium) to
 * consent in the console, exchanges the code, lists and calls tools; then refreshes, and a reused refresh token
 * ends the grant; and a grant revoked in Settings → Agent Access is refused by another node at once.
 */

const PASSWORD = 'a password for the OAuth flow';

/** An MCP client's OAuth state, kept in memory as a desktop client keeps it on disk. */
class MemoryOAuthProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  saved: StoredOAuthTokens | undefined;
  verifier = '';
  discovered: OAuthDiscoveryState | undefined;
  /** Where the SDK sent the browser: the authorization request. */
  authorizationUrl: URL | undefined;

  constructor(readonly redirectUrl: string) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Claude (test)',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    return 'state-of-the-test';
  }
  clientInformation(): StoredOAuthClientInformation | undefined {
    return this.client;
  }
  saveClientInformation(client: StoredOAuthClientInformation): void {
    this.client = client;
  }
  tokens(): StoredOAuthTokens | undefined {
    return this.saved;
  }
  saveTokens(tokens: StoredOAuthTokens): void {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }
  codeVerifier(): string {
    return this.verifier;
  }
  // Kept beside the verifier, so the SDK checks that the code comes back from the server it discovered.
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.discovered = state;
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovered;
  }
}

/** The client's loopback redirect URI: records the callback's query, answers a short page. */
function callbackServer(): { server: Server; callbacks: URLSearchParams[] } {
  const callbacks: URLSearchParams[] = [];
  const server = createServer((request, response) => {
    callbacks.push(new URL(request.url ?? '/', 'http://127.0.0.1').searchParams);
    response.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
  });
  return { server, callbacks };
}

function connectWith(baseUrl: string, provider: MemoryOAuthProvider): Promise<Client> {
  const client = new Client({ name: 'oauth-flow-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { authProvider: provider });
  return client.connect(transport).then(() => client);
}

/**
 * tools/list on a node by hand with an access token: the nodes listen on addresses of their own, where one
 * deployment's nodes share one PUBLIC_URL, so the SDK client (which checks that address) talks to the first.
 */
function listToolsOn(baseUrl: string, accessToken: string): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
}

describeInBrowser('an MCP client connecting by OAuth', () => {
  describeEachBackend('the official SDK client', (backend) => {
    let database: TestDatabase;
    let nodeA: TestApp;
    let nodeB: TestApp;
    let baseA: string;
    let baseB: string;
    let browser: Browser;
    let callback: ReturnType<typeof callbackServer>;
    let redirectUrl: string;
    let ownerEmail: string;
    let ownerSession: string;
    let workspaceId: string;
    const provider = () => new MemoryOAuthProvider(redirectUrl);
    let connected: MemoryOAuthProvider;

    beforeAll(async () => {
      database = await backend.create();
      nodeA = await startTestApp(database, { consoleDir: CONSOLE_DIR, logLevel: 'info' });
      nodeB = await startTestApp(database, { logLevel: 'info' });
      // The browser's clock is the real one: cookies and tokens are judged against it.
      for (const node of [nodeA, nodeB]) node.clock.advance(Date.now() - node.clock.now());
      ownerEmail = `owner-${backend.name}@oauth.example`;
      const created = await findOrCreateUser(nodeA.deps, ownerEmail);
      await nodeA.store.users.setPasswordHash(created.id, await hashPassword(PASSWORD));
      // As signed in with that password: a session remembers the password it was issued under.
      const owner = await nodeA.store.users.get(created.id);
      if (!owner) throw new Error('the owner is gone');
      const workspace = await createWorkspace(nodeA.deps, OPERATOR, { name: 'Acme Coffee', owner });
      workspaceId = workspace.id;
      await replaceBrand(nodeA.deps, OPERATOR, workspaceId, parseBrandDocument(DEMO_BRAND));
      ownerSession = (await issueSession(nodeA.deps, owner)).access_token;
      baseA = `http://127.0.0.1:${String(await listenOnLoopback(nodeA.app))}`;
      baseB = `http://127.0.0.1:${String(await listenOnLoopback(nodeB.app))}`;
      callback = callbackServer();
      await new Promise<void>((listening) => callback.server.listen(0, '127.0.0.1', listening));
      redirectUrl = `http://127.0.0.1:${String((callback.server.address() as AddressInfo).port)}/callback`;
      browser = await chromium.launch({
        executablePath: CHROMIUM_PATH,
        headless: true,
        args: ['--no-sandbox'],
      });
    });

    afterAll(async () => {
      await browser.close();
      await new Promise((closed) => callback.server.close(closed));
      await nodeA.close();
      await nodeB.close();
      await database.drop();
    });

    /** The person's part: sign in if asked, then Allow on the console's consent page; answers the callback. */
    async function consentInBrowser(authorizationUrl: URL): Promise<URLSearchParams> {
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const seen = callback.callbacks.length;
        await page.goto(authorizationUrl.href);
        const email = page.getByRole('textbox', { name: 'Email', exact: true });
        await email.waitFor({ timeout: WAIT_MS });
        await email.fill(ownerEmail);
        await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.getByText('Claude (test)', { exact: false }).first().waitFor({ timeout: WAIT_MS });
        await page.getByRole('button', { name: 'Allow', exact: true }).click();
        await page.waitForURL((url) => url.href.startsWith(redirectUrl), { timeout: WAIT_MS });
        const answered = callback.callbacks[seen];
        if (answered === undefined) throw new Error('the browser never reached the redirect URI');
        return answered;
      } finally {
        await context.close();
      }
    }

    /** The SDK's whole flow: a 401, discovery, registration, consent, the code exchanged; then connected. */
    async function authorize(): Promise<{ provider: MemoryOAuthProvider; client: Client }> {
      const oauth = provider();
      await expect(connectWith(baseA, oauth)).rejects.toBeInstanceOf(UnauthorizedError);
      const authorizationUrl = oauth.authorizationUrl;
      if (authorizationUrl === undefined) throw new Error('the SDK never asked for consent');
      expect(authorizationUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authorizationUrl.searchParams.get('resource')).toBe(`${baseA}/mcp`);
      const answered = await consentInBrowser(authorizationUrl);
      expect(answered.get('state')).toBe('state-of-the-test');
      expect(answered.get('iss')).toBe(baseA);
      const transport = new StreamableHTTPClientTransport(new URL(`${baseA}/mcp`), { authProvider: oauth });
      await transport.finishAuth(answered);
      return { provider: oauth, client: await connectWith(baseA, oauth) };
    }

    it('registers, gets consent in the browser, and lists and calls tools with its access token', async () => {
      const { provider: oauth, client } = await authorize();
      connected = oauth;
      expect(oauth.saved?.access_token).toMatch(/^oat_/);
      expect(oauth.saved?.refresh_token).toMatch(/^ort_/);
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      expect(tools).toContain('get_brand_context');
      const result = await client.callTool({ name: 'get_brand_context', arguments: {} });
      expect(result.isError).toBeFalsy();
      expect(JSON.stringify(result.content)).toContain('Acme Coffee');
      await client.close();
    });

    it('refreshes its tokens, and a refresh token used twice ends the grant', async () => {
      const oauth = connected;
      const { client: information, saved } = oauth;
      if (information === undefined || saved?.refresh_token === undefined) throw new Error('not connected');
      const first = saved.refresh_token;
      const metadata = await discoverAuthorizationServerMetadata(baseA);
      const refreshed = await refreshAuthorization(baseA, {
        metadata,
        clientInformation: information,
        refreshToken: first,
        resource: `${baseA}/mcp`,
      });
      expect(refreshed.refresh_token).toMatch(/^ort_/);
      expect(refreshed.refresh_token).not.toBe(first);
      oauth.saveTokens(refreshed);
      const client = await connectWith(baseA, oauth);
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();

      // The old refresh token again, as a thief would: refused, and the grant it came from ends with it.
      await expect(
        refreshAuthorization(baseA, { metadata, clientInformation: information, refreshToken: first }),
      ).rejects.toMatchObject({ code: 'invalid_grant' });
      expect((await listToolsOn(baseB, refreshed.access_token)).status).toBe(401);
    });

    it('is refused by another node at once after its grant is revoked in Agent Access', async () => {
      const { provider: oauth, client } = await authorize();
      await client.close();
      const grants = await fetch(`${baseA}/api/v1/workspaces/${workspaceId}/oauth-grants`, {
        headers: { authorization: `Bearer ${ownerSession}` },
      });
      expect(grants.status).toBe(200);
      const { grants: listed } = (await grants.json()) as { grants: { id: string; client_name: string }[] };
      const grant = listed.find((each) => each.client_name === 'Claude (test)');
      if (grant === undefined) throw new Error('the grant is not listed in Agent Access');
      const revoked = await fetch(`${baseA}/api/v1/workspaces/${workspaceId}/oauth-grants/${grant.id}`, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${ownerSession}` },
      });
      expect(revoked.status).toBe(204);
      const refused = await listToolsOn(baseB, oauth.saved?.access_token ?? '');
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
    });
  });
});
