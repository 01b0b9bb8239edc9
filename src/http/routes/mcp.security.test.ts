import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { isoAt } from '../../core/clock.js';
import { InProcessClient } from '../../mcp/in-process-client.js';
import { describeEachBackend } from '#test/support/databases.js';
import { type Fixture, useFixture } from '#test/support/http-fixture.js';
import {
  connectMcp,
  FakeAccessTokens,
  initializeRequest,
  mcpFixtureOptions,
  postMcp,
  textOf,
  storedAccessToken,
} from '#test/support/fixtures/mcp.js';
import { addUser } from '#test/support/users.js';

/** The names of the campaigns of the fixture's workspace. */
async function campaignNames(f: Fixture, workspaceId = f.workspaceId): Promise<string[]> {
  return (await f.store.campaigns.list(workspaceId, { limit: 100 })).map((campaign) => campaign.name);
}

describeEachBackend('POST /mcp: security', (backend) => {
  const tokens = new FakeAccessTokens();
  const fixture = useFixture(backend, mcpFixtureOptions(tokens));
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  describe('DNS rebinding', () => {
    it.each([
      ['without a credential', undefined],
      ['with a valid credential', 'brandKey'],
    ] as const)(
      'answers 403 origin_forbidden to a page of a foreign origin %s, before anything else',
      async (_name, credential) => {
        const f = fixture();
        const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), {
          origin: 'https://attacker.example',
          ...(credential === undefined ? {} : { authorization: `Bearer ${f[credential]}` }),
        });
        expect(answer.status).toBe(403);
        expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
        expect(answer.headers.get('www-authenticate')).toBeNull();
        expect(answer.message).toMatchObject({ status: 403, code: 'origin_forbidden' });
      },
    );

    it('answers 403 host_forbidden to a request naming another host, whatever its credential, and takes a loopback name or its own', async () => {
      const f = fixture();
      const send = (host: string) =>
        f.app.inject({
          method: 'POST',
          url: '/mcp',
          headers: {
            host,
            authorization: `Bearer ${f.brandKey}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          payload: JSON.stringify(initializeRequest('2025-11-25')),
        });
      const port = new URL(f.baseUrl).port;
      const refused = await send('evil.example.com');
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'host_forbidden' });
      for (const host of [
        `localhost:${port}`,
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        new URL(f.baseUrl).host,
      ]) {
        expect((await send(host)).statusCode, host).toBe(200);
      }
    });

    it('refuses a foreign page its CORS preflight, and tells it nothing it may read', async () => {
      const f = fixture();
      const preflight = await fetch(`${f.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: { origin: 'https://attacker.example', 'access-control-request-method': 'POST' },
      });
      expect(preflight.status).toBe(403);
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('refuses an origin that only looks like its own: another port, another scheme, "null"', async () => {
      const f = fixture();
      const port = Number(new URL(f.baseUrl).port);
      for (const origin of [
        `http://127.0.0.1:${String(port + 1)}`,
        `https://127.0.0.1:${String(port)}`,
        'null',
      ]) {
        const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), {
          origin,
          authorization: `Bearer ${f.brandKey}`,
        });
        expect(answer.status, origin).toBe(403);
      }
    });
  });

  describe('workspace boundaries', () => {
    it("refuses a brand read key of another workspace the target's brand, and tells nothing of it", async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.otherBrandKey);
      const result = await client.callTool({
        name: 'get_brand_context',
        arguments: { workspace_id: f.workspaceId },
      });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('workspace_forbidden (HTTP 403)');
      expect(textOf(result)).not.toContain('Acme Coffee');
    });

    it('refuses a workspace API key of another workspace every campaign tool, and writes nothing', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.otherApiKey);
      const calls = [
        { name: 'list_campaigns', arguments: { workspace_id: f.workspaceId } },
        { name: 'get_campaign', arguments: { workspace_id: f.workspaceId, campaign_id: 'cmp_any' } },
        { name: 'create_campaign_draft', arguments: { workspace_id: f.workspaceId, name: 'Intruder' } },
        {
          name: 'update_campaign_draft',
          arguments: { workspace_id: f.workspaceId, campaign_id: 'cmp_any', version: 1, subject: 'x' },
        },
      ];
      for (const call of calls) {
        const result = await client.callTool(call);
        expect(result.isError, call.name).toBe(true);
        expect(textOf(result), call.name).toContain('workspace_forbidden');
      }
      expect(await campaignNames(f)).not.toContain('Intruder');
    });

    it('keeps an OAuth grant to its workspace, even where its user is a member of another', async () => {
      const f = fixture();
      await f.store.workspaces.addMember({
        workspaceId: f.otherWorkspaceId,
        userId: f.member.user.id,
        role: 'member',
        createdAt: isoAt(f.clock),
      });
      const token = tokens.issue(f.member.user.id, f.workspaceId, ['brand:read', 'campaigns:write']);
      client = await connectMcp(f.baseUrl, token);
      const read = await client.callTool({
        name: 'get_brand_context',
        arguments: { workspace_id: f.otherWorkspaceId },
      });
      expect(read.isError).toBe(true);
      expect(textOf(read)).toContain('workspace_forbidden');
      const write = await client.callTool({
        name: 'create_campaign_draft',
        arguments: { workspace_id: f.otherWorkspaceId, name: 'Across' },
      });
      expect(textOf(write)).toContain('workspace_forbidden');
      expect(await campaignNames(f, f.otherWorkspaceId)).not.toContain('Across');
      // Its own workspace is the default, whatever else its user may reach.
      const own = await client.callTool({ name: 'get_brand_context', arguments: {} });
      expect(textOf(own)).toMatch(/^# Acme Coffee/);
    });

    it('refuses a grant what its scopes do not allow even if a tool were shown it: the client checks them on every call', async () => {
      const f = fixture();
      const { credentials, reader, readLimits, deps } = f.app.services;
      const client = new InProcessClient(
        { credentials, reader, readLimits, deps },
        {
          principal: { kind: 'provider_token', user: f.member.user, expiresAt: Date.now() + 3_600_000 },
          grant: { workspaceId: f.workspaceId, permissions: ['brand.read'] },
        },
      );
      await expect(client.createCampaign(f.workspaceId, { name: 'Out of scope' })).rejects.toMatchObject({
        code: 'insufficient_scope',
        extra: { status: 403 },
      });
      expect(await campaignNames(f)).not.toContain('Out of scope');
    });

    it('refuses an OAuth grant of a user who has since left the workspace', async () => {
      const f = fixture();
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      const token = tokens.issue(user.id, f.workspaceId, ['brand:read']);
      await f.store.workspaces.removeMember(f.workspaceId, user.id);
      client = await connectMcp(f.baseUrl, token);
      const result = await client.callTool({ name: 'get_brand_context', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('workspace_forbidden');
    });
  });
});

describeEachBackend("POST /mcp: security, with the OAuth server's own access tokens", (backend) => {
  const fixture = useFixture(backend, mcpFixtureOptions());

  it('takes a stored access token for the tools of its scopes, and refuses it with 401 from the request after its grant is revoked', async () => {
    const f = fixture();
    const { token, grantId } = await storedAccessToken(f, f.member.user.id, ['campaigns:read']);
    const client = await connectMcp(f.baseUrl, token);
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
        'get_campaign',
        'list_campaigns',
      ]);
    } finally {
      await client.close();
    }
    await f.store.oauth.revokeGrant(grantId, isoAt(f.clock));
    const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), {
      authorization: `Bearer ${token}`,
    });
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toMatch(
      /^Bearer resource_metadata=".*", error="invalid_token"$/,
    );
    expect(answer.message).toMatchObject({ code: 'invalid_token' });
  });
});
