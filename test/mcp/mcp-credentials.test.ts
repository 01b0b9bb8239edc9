import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { createApiKey, createBrandKey, KEY_SERVICES } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { addUser, bearer } from '#test/support/users.js';
import {
  callTool,
  connectMcp,
  type LiveService,
  type McpSession,
  OutputSchemas,
  personalAccessToken,
  startLiveService,
} from './mcp-harness.js';

/** Each describe runs one `brand-context mcp` process with one set of credentials against one service. */
let service: LiveService;
let acmeId: string;
let teaId: string;

beforeAll(async () => {
  service = await startLiveService();
  acmeId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Coffee' })).id;
  await replaceBrand(service.deps, OPERATOR, acmeId, parseBrandDocument(DEMO_BRAND));
  teaId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Tea' })).id;
});
afterAll(async () => {
  await service.close();
});

describe('brand-context mcp: a user with two workspaces and no default', () => {
  let mcp: McpSession;

  beforeAll(async () => {
    const user = await addUser(service, { workspaceId: acmeId, role: 'owner' });
    await service.store.workspaces.addMember({
      workspaceId: teaId,
      userId: user.user.id,
      role: 'member',
      createdAt: new Date(service.clock.now()).toISOString(),
    });
    const { token } = await personalAccessToken(service, user.token);
    mcp = await connectMcp({ BRAND_CONTEXT_URL: service.baseUrl, BRAND_CONTEXT_ACCESS_TOKEN: token });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('returns a tool error listing both workspace ids and asking for workspace_id', async () => {
    for (const tool of ['get_brand_context', 'list_campaigns']) {
      const call = await callTool(mcp.client, tool);
      expect(call.isError, tool).toBe(true);
      expect(call.text, tool).toContain('workspace_required');
      expect(call.text, tool).toContain(`${acmeId} ("Acme Coffee", owner)`);
      expect(call.text, tool).toContain(`${teaId} ("Acme Tea", member)`);
      expect(call.text, tool).toMatch(/Resolution: Call the tool again with workspace_id/);
    }
  });

  it('answers once workspace_id names one of them', async () => {
    const call = await callTool(mcp.client, 'get_brand_context', { workspace_id: teaId, sections: ['name'] });
    expect(call).toMatchObject({ isError: false, text: '# Acme Tea\n' });
  });

  it('fails the resource read listing both ids, saying to set the default in the client configuration, and keeps serving', async () => {
    const read = mcp.client.readResource({ uri: 'brand-context://brand/voice' });
    await expect(read).rejects.toThrow(/workspace_required/);
    const message = await read.catch((error: unknown) => (error instanceof Error ? error.message : ''));
    expect(message).toContain(`${acmeId} ("Acme Coffee", owner)`);
    expect(message).toContain(`${teaId} ("Acme Tea", member)`);
    expect(message).toContain(
      'Resolution: Resources take no workspace_id: ask the user to set BRAND_CONTEXT_WORKSPACE_ID in the MCP client configuration',
    );
    expect(message).not.toContain('Call the tool again');
    const call = await callTool(mcp.client, 'list_campaigns', { workspace_id: acmeId });
    expect(call).toMatchObject({ isError: false, structured: { campaigns: [], next_cursor: null } });
  });
});

describe('brand-context mcp: a workspace API key, a brand read key and a default workspace', () => {
  let mcp: McpSession;
  let outputs: OutputSchemas;
  let brandKey: string;
  let apiKey: string;

  beforeAll(async () => {
    brandKey = (await createBrandKey(service.deps, OPERATOR, { workspaceId: acmeId, name: 'mcp' })).key;
    apiKey = (await createApiKey(service.deps, OPERATOR, { workspaceId: acmeId, name: 'mcp' })).key;
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_CONTEXT_ACCESS_TOKEN: apiKey,
      BRAND_READ_KEY: brandKey,
      BRAND_CONTEXT_WORKSPACE_ID: acmeId,
    });
    outputs = await OutputSchemas.of(mcp.client);
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('reads the brand with the brand read key (the service refuses a workspace API key there)', async () => {
    const call = await callTool(mcp.client, 'get_brand_context');
    expect(call.isError, call.text).toBe(false);
    expect(call.text).toMatch(/^# Acme Coffee\n/);
  });

  it('writes campaign drafts of the default workspace with the workspace API key', async () => {
    const created = await callTool(mcp.client, 'create_campaign_draft', { name: 'From the API key' });
    outputs.expectValid('create_campaign_draft', created);
    expect(created.structured).toMatchObject({ workspace_id: acmeId, name: 'From the API key', version: 1 });
  });

  it('returns workspace_forbidden for another workspace than the keys', async () => {
    const call = await callTool(mcp.client, 'list_campaigns', { workspace_id: teaId });
    expect(call.isError).toBe(true);
    expect(call.text).toContain('workspace_forbidden (HTTP 403)');
  });

  it('never writes either key to stderr', () => {
    expect(mcp.stderr()).toContain('serving on stdio');
    expect(mcp.stderr()).not.toContain(brandKey);
    expect(mcp.stderr()).not.toContain(apiKey);
  });
});

describe('brand-context mcp: a brand read key alone', () => {
  let mcp: McpSession;
  let brandKey: string;

  beforeAll(async () => {
    brandKey = (await createBrandKey(service.deps, OPERATOR, { workspaceId: acmeId, name: 'read only' })).key;
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_READ_KEY: brandKey,
      BRAND_CONTEXT_WORKSPACE_ID: acmeId,
    });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('reads the brand, searches its knowledge, and reads the resource', async () => {
    const call = await callTool(mcp.client, 'get_brand_context', { sections: ['name'] });
    expect(call).toMatchObject({ isError: false, text: '# Acme Coffee\n' });
    const search = await callTool(mcp.client, 'search_brand_knowledge', { query: 'sign-off' });
    expect(search.text).toMatch(/^- \*\*Sign-off\*\* \(guideline; tags: style\)/);
    const { contents } = await mcp.client.readResource({ uri: 'brand-context://brand' });
    expect(contents[0] && 'text' in contents[0] ? contents[0].text : '').toMatch(/^# Acme Coffee\n/);
  });

  it('answers the campaign tools with a tool error saying which credential is missing', async () => {
    const call = await callTool(mcp.client, 'list_campaigns');
    expect(call.isError).toBe(true);
    expect(call.text).toContain('missing_access_token');
    expect(call.text).toMatch(/Resolution: .*BRAND_CONTEXT_ACCESS_TOKEN/);
    expect(mcp.stderr()).not.toContain(brandKey);
  });
});

describe('brand-context mcp: a workspace API key alone', () => {
  let mcp: McpSession;
  let apiKey: string;

  beforeAll(async () => {
    apiKey = (await createApiKey(service.deps, OPERATOR, { workspaceId: acmeId, name: 'drafts only' })).key;
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_CONTEXT_ACCESS_TOKEN: apiKey,
      BRAND_CONTEXT_WORKSPACE_ID: acmeId,
    });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('says a brand read needs BRAND_READ_KEY, not that the workspace API key must be replaced', async () => {
    for (const tool of ['get_brand_context', 'search_brand_knowledge']) {
      const call = await callTool(
        mcp.client,
        tool,
        tool === 'search_brand_knowledge' ? { query: 'tone' } : {},
      );
      expect(call.isError, tool).toBe(true);
      expect(call.text, tool).toContain('missing_brand_read_key');
      expect(call.text, tool).toMatch(/Resolution: .*set it as BRAND_READ_KEY/);
      expect(call.text, tool).not.toMatch(/replaced|revoke/i);
    }
    await expect(mcp.client.readResource({ uri: 'brand-context://brand' })).rejects.toThrow(/BRAND_READ_KEY/);
  });

  it('still writes campaign drafts with the workspace API key', async () => {
    const call = await callTool(mcp.client, 'list_campaigns');
    expect(call.isError, call.text).toBe(false);
    expect(mcp.stderr()).not.toContain(apiKey);
  });
});

describe('brand-context mcp: a brand read key that gets revoked, beside a workspace API key', () => {
  let mcp: McpSession;

  beforeAll(async () => {
    const brand = await createBrandKey(service.deps, OPERATOR, { workspaceId: acmeId, name: 'to revoke' });
    const apiKey = (await createApiKey(service.deps, OPERATOR, { workspaceId: acmeId, name: 'stays' })).key;
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_CONTEXT_ACCESS_TOKEN: apiKey,
      BRAND_READ_KEY: brand.key,
      BRAND_CONTEXT_WORKSPACE_ID: acmeId,
    });
    expect((await callTool(mcp.client, 'get_brand_context', { sections: ['name'] })).isError).toBe(false);
    await KEY_SERVICES.brand.revoke(service.deps, OPERATOR, acmeId, brand.id);
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('names BRAND_READ_KEY as the credential to replace, and nothing else', async () => {
    const call = await callTool(mcp.client, 'get_brand_context');
    expect(call.text).toContain('key_revoked (HTTP 401)');
    expect(call.text).toMatch(/Next step: .*\(BRAND_READ_KEY in the MCP client configuration\)/);
    expect(call.text).not.toContain('BRAND_CONTEXT_ACCESS_TOKEN');
    expect((await callTool(mcp.client, 'list_campaigns')).isError).toBe(false);
  });
});

describe('brand-context mcp: a personal access token that gets revoked', () => {
  let mcp: McpSession;
  let token: string;

  beforeAll(async () => {
    const user = await addUser(service, { workspaceId: acmeId, role: 'member' });
    const created = await personalAccessToken(service, user.token);
    token = created.token;
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_CONTEXT_ACCESS_TOKEN: token,
      BRAND_CONTEXT_WORKSPACE_ID: acmeId,
    });
    expect((await callTool(mcp.client, 'list_campaigns')).isError).toBe(false);
    const revoked = await service.app.inject({
      method: 'DELETE',
      url: `/api/v1/tokens/${created.id}`,
      headers: bearer(user.token),
    });
    expect(revoked.statusCode).toBe(200);
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('returns a tool error with the resolution for a revoked token, on every tool', async () => {
    for (const [tool, args] of [
      ['get_brand_context', {}],
      ['search_brand_knowledge', { query: 'roast' }],
      ['list_campaigns', {}],
      ['get_campaign', { campaign_id: 'cmp_any' }],
      ['create_campaign_draft', { name: 'Nope' }],
      ['update_campaign_draft', { campaign_id: 'cmp_any', version: 1, name: 'Nope' }],
    ] as const) {
      const call = await callTool(mcp.client, tool, args);
      expect(call.isError, tool).toBe(true);
      expect(call.text, tool).toContain('token_revoked (HTTP 401)');
      expect(call.text, tool).toMatch(/Resolution: Create a new personal access token/);
      expect(call.text, tool).toMatch(/Next step: .*BRAND_CONTEXT_ACCESS_TOKEN/);
      expect(call.text, tool).not.toContain('BRAND_READ_KEY');
      expect(call.text, tool).not.toContain(token);
    }
  });

  it('keeps serving the protocol after the errors', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools).toHaveLength(7);
    expect(mcp.stderr()).not.toContain(token);
  });
});

describe('brand-context mcp: a forged token', () => {
  let mcp: McpSession;
  const forged = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfbWFsbG9yeSJ9.c2lnbmF0dXJlLW9mLW5vYm9keS1hdC1hbGwtMDAw';

  beforeAll(async () => {
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_CONTEXT_ACCESS_TOKEN: forged,
      BRAND_CONTEXT_WORKSPACE_ID: acmeId,
    });
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('returns an invalid_token tool error with the resolution', async () => {
    const call = await callTool(mcp.client, 'get_campaign', { campaign_id: 'cmp_any' });
    expect(call.isError).toBe(true);
    expect(call.text).toContain('invalid_token (HTTP 401)');
    expect(call.text).toMatch(/Resolution: Sign in again/);
    expect(call.text).not.toContain(forged);
    expect(mcp.stderr()).not.toContain(forged);
  });
});
