import { countTokens } from 'gpt-tokenizer';
import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { OPERATOR } from '../../services/audit/audit.js';
import { createBrandKey } from '../../services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { useFixture } from '#test/support/http-fixture.js';
import {
  ALLOWED_ORIGIN,
  connectMcp,
  FakeAccessTokens,
  initializeRequest,
  mcpFixtureOptions,
  postMcp,
  toolNames,
} from '#test/support/fixtures/mcp.js';

const BRAND_TOOLS = ['check_brand_compliance', 'get_brand_context', 'search_brand_knowledge'];
const CAMPAIGN_TOOLS = ['create_campaign_draft', 'get_campaign', 'list_campaigns', 'update_campaign_draft'];

describeEachBackend('POST /mcp: happy path', (backend) => {
  const tokens = new FakeAccessTokens();
  const fixture = useFixture(backend, mcpFixtureOptions(tokens));
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  describe('what each credential is shown', () => {
    it('shows a brand read key the two brand tools and the brand resources, and no prompt', async () => {
      const f = fixture();
      expect(await toolNames(f.baseUrl, f.brandKey)).toEqual(BRAND_TOOLS);
      client = await connectMcp(f.baseUrl, f.brandKey);
      const resources = (await client.listResources()).resources.map((resource) => resource.uri);
      expect(resources).toContain('brand-context://brand');
      expect(client.getServerCapabilities()?.prompts).toBeUndefined();
    });

    it('shows a workspace API key the four campaign tools only', async () => {
      const f = fixture();
      expect(await toolNames(f.baseUrl, f.apiKey)).toEqual(CAMPAIGN_TOOLS);
    });

    it("shows a personal access token and a member's sign-in token all seven tools and the prompt", async () => {
      const f = fixture();
      const all = [...BRAND_TOOLS, ...CAMPAIGN_TOOLS].sort();
      expect(await toolNames(f.baseUrl, f.ownerPat)).toEqual(all);
      expect(await toolNames(f.baseUrl, f.member.token)).toEqual(all);
      client = await connectMcp(f.baseUrl, f.ownerPat);
      expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual([
        'draft_on_brand_email',
      ]);
    });

    it("shows an OAuth access token the tools of its grant's scopes, and the prompt only with brand:read and campaigns:write", async () => {
      const f = fixture();
      const userId = f.member.user.id;
      const brandOnly = tokens.issue(userId, f.workspaceId, ['brand:read']);
      const readCampaigns = tokens.issue(userId, f.workspaceId, ['campaigns:read']);
      const writeCampaigns = tokens.issue(userId, f.workspaceId, ['campaigns:write']);
      expect(await toolNames(f.baseUrl, brandOnly)).toEqual(BRAND_TOOLS);
      expect(await toolNames(f.baseUrl, readCampaigns)).toEqual(['get_campaign', 'list_campaigns']);
      expect(await toolNames(f.baseUrl, writeCampaigns)).toEqual([
        'create_campaign_draft',
        'update_campaign_draft',
      ]);
      client = await connectMcp(
        f.baseUrl,
        tokens.issue(userId, f.workspaceId, ['brand:read', 'campaigns:write']),
      );
      expect((await client.listPrompts()).prompts).toHaveLength(1);
    });

    it('keeps all seven tool definitions within 2,000 tokens (o200k), hints included, as the stdio server does', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.ownerPat);
      const { tools } = await client.listTools();
      expect(tools).toHaveLength(7);
      expect(countTokens(JSON.stringify(tools))).toBeLessThanOrEqual(2000);
    });

    it('marks every tool read-only or not, destructive or not, idempotent or not', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.ownerPat);
      const hints = Object.fromEntries(
        (await client.listTools()).tools.map((tool) => [
          tool.name,
          [
            tool.annotations?.readOnlyHint,
            tool.annotations?.destructiveHint,
            tool.annotations?.idempotentHint,
          ],
        ]),
      );
      expect(hints).toEqual({
        get_brand_context: [true, false, true],
        search_brand_knowledge: [true, false, true],
        check_brand_compliance: [true, false, true],
        list_campaigns: [true, false, true],
        get_campaign: [true, false, true],
        create_campaign_draft: [false, false, false],
        update_campaign_draft: [false, true, false],
      });
    });
  });

  describe('tools called', () => {
    it("answers get_brand_context with a brand read key as the brand's Markdown, its workspace the default", async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.brandKey);
      const result = await client.callTool({ name: 'get_brand_context', arguments: {} });
      expect(result.isError).toBeFalsy();
      const [block] = result.content;
      expect(block?.type === 'text' ? block.text : '').toMatch(/^# Acme Coffee/);
    });

    it('saves a draft with create_campaign_draft for a workspace API key, audited as that key', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.apiKey);
      const result = await client.callTool({
        name: 'create_campaign_draft',
        arguments: { name: 'Spring launch', subject: 'Spring is here' },
      });
      expect(result.isError).toBeFalsy();
      const draft = result.structuredContent as { id: string; workspace_id: string; status: string };
      expect(draft).toMatchObject({ workspace_id: f.workspaceId, status: 'draft' });
      const stored = await f.store.campaigns.get(f.workspaceId, draft.id);
      expect(stored).toMatchObject({ name: 'Spring launch', subject: 'Spring is here', version: 1 });
      const audit = await f.store.audit.list(f.workspaceId, { limit: 5 });
      expect(audit.find((event) => event.targetId === draft.id)).toMatchObject({
        action: 'campaign.created',
        actorType: 'api_key',
        actorId: f.apiKeyId,
      });
    });

    it('ends the answer with a notice when the brand read key expires within 14 days, pointing at the MCP client configuration', async () => {
      const f = fixture();
      const key = await createBrandKey(f.deps, OPERATOR, {
        workspaceId: f.workspaceId,
        name: 'expiring',
        expiresInDays: 3,
      });
      client = await connectMcp(f.baseUrl, key.key);
      const result = await client.callTool({ name: 'get_brand_context', arguments: {} });
      const last = result.content.at(-1);
      expect(result.content).toHaveLength(2);
      expect(last?.type === 'text' ? last.text : '').toMatch(
        /^Tell the user: the Brand Context brand read key expires .+ \(in 3 days\); rotate it in Settings → Agent Access and put the new one in the MCP client configuration\.$/,
      );
    });

    it("uses a user's only workspace when workspace_id is left out, and the one named otherwise", async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.ownerPat);
      const page = await client.callTool({ name: 'list_campaigns', arguments: {} });
      expect(page.isError).toBeFalsy();
      const named = await client.callTool({
        name: 'search_brand_knowledge',
        arguments: { workspace_id: f.workspaceId, query: 'coffee' },
      });
      expect(named.isError).toBeFalsy();
    });
  });

  describe('the protected-resource metadata', () => {
    it('names /mcp as the resource, this service as its authorization server, the scopes and header bearer tokens (RFC 9728)', async () => {
      const f = fixture();
      const response = await fetch(`${f.baseUrl}/.well-known/oauth-protected-resource/mcp`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
      expect(await response.json()).toEqual({
        resource: `${f.baseUrl}/mcp`,
        authorization_servers: [f.baseUrl],
        scopes_supported: ['brand:read', 'campaigns:read', 'campaigns:write'],
        bearer_methods_supported: ['header'],
        resource_name: 'Brand Context',
      });
    });
  });

  describe('the protocol', () => {
    it.each(['2025-06-18', '2025-11-25'])('negotiates protocol version %s in initialize', async (version) => {
      const f = fixture();
      const answer = await postMcp(f.baseUrl, initializeRequest(version), {
        authorization: `Bearer ${f.brandKey}`,
      });
      expect(answer.status).toBe(200);
      expect(answer.message).toMatchObject({
        id: 1,
        result: { protocolVersion: version, serverInfo: { name: 'brand-context' } },
      });
    });

    it('serves a client that negotiates the 2026-07-28 revision the same tools, statelessly too', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.brandKey, { negotiate: true });
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual(BRAND_TOOLS);
      const result = await client.callTool({ name: 'get_brand_context', arguments: {} });
      const [block] = result.content;
      expect(block?.type === 'text' ? block.text : '').toMatch(/^# Acme Coffee/);
    });

    it('answers a page of an allowed origin (MCP_ALLOWED_ORIGINS) and of its own origin, which may read the answer', async () => {
      const f = fixture();
      for (const origin of [ALLOWED_ORIGIN, f.baseUrl]) {
        const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), {
          authorization: `Bearer ${f.brandKey}`,
          origin,
        });
        expect(answer.status, origin).toBe(200);
        expect(answer.headers.get('access-control-allow-origin'), origin).toBe(origin);
      }
    });

    it("lets a page of an allowed origin send its credential (CORS preflight), and read a 401's challenge", async () => {
      const f = fixture();
      const preflight = await fetch(`${f.baseUrl}/mcp`, {
        method: 'OPTIONS',
        headers: {
          origin: ALLOWED_ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
      expect(preflight.headers.get('access-control-allow-headers')).toContain('mcp-protocol-version');
      const refused = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), { origin: ALLOWED_ORIGIN });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('access-control-allow-origin')).toBe(ALLOWED_ORIGIN);
      expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    });

    it('serves statelessly: a tool call needs no session of an earlier initialize', async () => {
      const f = fixture();
      const answer = await postMcp(
        f.baseUrl,
        { jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} },
        { authorization: `Bearer ${f.apiKey}`, 'mcp-protocol-version': '2025-11-25' },
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('mcp-session-id')).toBeNull();
      const { tools } = (answer.message as { result: { tools: { name: string }[] } }).result;
      expect(tools.map((tool) => tool.name).sort()).toEqual(CAMPAIGN_TOOLS);
    });
  });
});
