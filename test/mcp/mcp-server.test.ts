import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandContext } from '../../src/core/brand-context.js';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit.js';
import { replaceBrand } from '../../src/services/brand.js';
import { createCampaign, scheduleCampaign } from '../../src/services/campaigns.js';
import { DEMO_BRAND } from '../../src/services/demo-brand.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import type { Campaign } from '../../src/mcp/schemas.js';
import { addUser } from '../support/users.js';
import {
  callTool,
  connectMcp,
  type LiveService,
  type McpSession,
  OutputSchemas,
  personalAccessToken,
  rawExchange,
  startLiveService,
} from './mcp-harness.js';

const TOOLS = [
  'create_campaign_draft',
  'get_brand_context',
  'get_campaign',
  'list_campaigns',
  'update_campaign_draft',
];

describe('brand-context mcp: a member with one workspace and a personal access token', () => {
  let service: LiveService;
  let mcp: McpSession;
  let outputs: OutputSchemas;
  let workspaceId: string;
  let otherWorkspaceId: string;
  let token: string;

  beforeAll(async () => {
    service = await startLiveService();
    workspaceId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Coffee' })).id;
    await replaceBrand(service.deps, OPERATOR, workspaceId, parseBrandDocument(DEMO_BRAND));
    otherWorkspaceId = (await createWorkspace(service.deps, OPERATOR, { name: 'Other Brand' })).id;
    const member = await addUser(service, { workspaceId, role: 'member' });
    token = (await personalAccessToken(service, member.token)).token;
    mcp = await connectMcp({ BRAND_CONTEXT_URL: service.baseUrl, BRAND_CONTEXT_ACCESS_TOKEN: token });
    outputs = await OutputSchemas.of(mcp.client);
  });
  afterAll(async () => {
    await mcp.close();
    await service.close();
  });

  describe('discovery', () => {
    it('lists the five tools, each with a description, an input schema and an output schema', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.description?.length, tool.name).toBeGreaterThan(100);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe('object');
        expect(Object.keys(tool.outputSchema?.properties ?? {}).length, tool.name).toBeGreaterThan(1);
      }
    });

    it('describes every argument of every tool', async () => {
      const { tools } = await mcp.client.listTools();
      for (const tool of tools) {
        const properties = tool.inputSchema.properties as Record<string, { description?: string }>;
        for (const [name, property] of Object.entries(properties)) {
          expect(property.description, `${tool.name}.${name}`).toMatch(/\w{3}/);
        }
      }
    });

    it('describes the fields of the campaigns it returns, as the model reads them', async () => {
      const { tools } = await mcp.client.listTools();
      type Properties = Record<string, { description?: string; items?: { properties?: Properties } }>;
      const outputFields = (name: string) =>
        (tools.find((tool) => tool.name === name)?.outputSchema?.properties ?? {}) as Properties;
      const described = (properties: Properties) =>
        Object.fromEntries(Object.entries(properties).map(([field, schema]) => [field, schema.description]));
      const summary = {
        id: 'Campaign id (cmp_…).',
        name: 'Internal name of the campaign.',
        subject: 'Email subject line.',
        preheader: 'Preview text shown after the subject in inboxes.',
        status: 'Only drafts can be changed.',
        version: 'Increases with every change; pass it to update_campaign_draft as `version`.',
      };
      const campaign = {
        ...summary,
        body_html: 'HTML body of the email.',
        body_text: 'Plain-text body of the email.',
      };
      for (const tool of ['get_campaign', 'create_campaign_draft', 'update_campaign_draft']) {
        expect(described(outputFields(tool)), tool).toMatchObject(campaign);
      }
      const listed = outputFields('list_campaigns').campaigns?.items?.properties ?? {};
      expect(described(listed)).toMatchObject(summary);
      expect(listed).not.toHaveProperty('body_html');
    });

    it('tells the model to re-read the campaign when update_campaign_draft meets a version conflict', async () => {
      const { tools } = await mcp.client.listTools();
      const update = tools.find((tool) => tool.name === 'update_campaign_draft');
      expect(update?.inputSchema.required).toEqual(expect.arrayContaining(['campaign_id', 'version']));
      expect(update?.description).toMatch(/version_mismatch/);
      expect(update?.description).toMatch(/get_campaign again/);
    });

    it('lists the brand resource and the email prompt with its arguments', async () => {
      const { resources } = await mcp.client.listResources();
      expect(resources).toEqual([
        expect.objectContaining({ uri: 'brand-context://brand', mimeType: 'application/json' }),
      ]);
      const { prompts } = await mcp.client.listPrompts();
      expect(prompts).toEqual([
        expect.objectContaining({
          name: 'draft_on_brand_email',
          arguments: expect.arrayContaining([
            expect.objectContaining({ name: 'topic', required: true }),
            expect.objectContaining({ name: 'audience', required: false }),
          ]) as unknown,
        }),
      ]);
    });
  });

  describe('brand context', () => {
    it('get_brand_context returns the whole brand of the only workspace, valid against its output schema', async () => {
      const call = await callTool(mcp.client, 'get_brand_context');
      outputs.expectValid('get_brand_context', call);
      const context = call.structured as BrandContext;
      expect(context.workspace_id).toBe(workspaceId);
      expect(context.name).toBe('Acme Coffee');
      expect(context.colors.primary).toBe('#6B3E26');
      expect(context.fonts.heading?.family).toBe('Fraunces');
      expect(context.knowledge).toHaveLength(20);
      expect(context.preferences).toMatchObject({ sign_off: '— The Acme crew' });
      expect(context.version).toBeGreaterThan(1);
    });

    it('get_brand_context with fields returns only those sections plus workspace_id, updated_at and version', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', {
        workspace_id: workspaceId,
        fields: ['voice', 'colors'],
      });
      outputs.expectValid('get_brand_context', call);
      const context = call.structured as Partial<BrandContext>;
      expect(Object.keys(context)).toEqual(['workspace_id', 'voice', 'colors', 'updated_at', 'version']);
      expect(context.voice).toMatch(/\w/);
      expect(context.colors?.accent).toBe('#D9822B');
    });

    it('treats an empty workspace_id as omitted, as models often send one', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', { workspace_id: '', fields: ['name'] });
      outputs.expectValid('get_brand_context', call);
      expect(call.structured).toMatchObject({ workspace_id: workspaceId, name: 'Acme Coffee' });
    });

    it('get_brand_context refuses a section that does not exist, naming the argument', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', { fields: ['logo'] });
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/fields/);
    });

    it('reads the brand resource as the same JSON', async () => {
      const { contents } = await mcp.client.readResource({ uri: 'brand-context://brand' });
      expect(contents).toHaveLength(1);
      const [content] = contents;
      expect(content).toMatchObject({ uri: 'brand-context://brand', mimeType: 'application/json' });
      const context = JSON.parse(content && 'text' in content ? content.text : '') as BrandContext;
      expect(context.workspace_id).toBe(workspaceId);
      expect(context.name).toBe('Acme Coffee');
      expect(context.knowledge).toHaveLength(20);
    });

    it('the prompt embeds the brand context and asks for an on-brand email saved with create_campaign_draft', async () => {
      const prompt = await mcp.client.getPrompt({
        name: 'draft_on_brand_email',
        arguments: { topic: 'our winter blend', audience: 'long-time subscribers' },
      });
      expect(prompt.messages).toHaveLength(1);
      const [message] = prompt.messages;
      expect(message?.role).toBe('user');
      const text = message?.content.type === 'text' ? message.content.text : '';
      expect(text).toContain('our winter blend');
      expect(text).toContain('long-time subscribers');
      for (const part of [
        'subject',
        'preheader',
        'body_html',
        'body_text',
        'create_campaign_draft',
        workspaceId,
      ])
        expect(text).toContain(part);
      const json = /```json\n([\s\S]*)\n```/.exec(text)?.[1] ?? '';
      expect((JSON.parse(json) as BrandContext).voice).toMatch(/\w/);
    });
  });

  describe('campaign drafts', () => {
    let draft: Campaign;

    it('create_campaign_draft saves a draft and returns it at version 1', async () => {
      const call = await callTool(mcp.client, 'create_campaign_draft', {
        name: 'Winter blend launch',
        subject: 'Our winter blend is here',
        preheader: 'Roasted this week in Portland',
        body_html: '<p>Hello</p>',
        body_text: 'Hello',
      });
      outputs.expectValid('create_campaign_draft', call);
      draft = call.structured as Campaign;
      expect(draft).toMatchObject({
        id: expect.stringMatching(/^cmp_/) as string,
        workspace_id: workspaceId,
        name: 'Winter blend launch',
        subject: 'Our winter blend is here',
        preheader: 'Roasted this week in Portland',
        body_html: '<p>Hello</p>',
        body_text: 'Hello',
        status: 'draft',
        version: 1,
      });
    });

    it('get_campaign returns the saved draft', async () => {
      const call = await callTool(mcp.client, 'get_campaign', { campaign_id: draft.id });
      outputs.expectValid('get_campaign', call);
      expect(call.structured).toEqual(draft);
    });

    it('update_campaign_draft changes only the given fields and increments the version', async () => {
      const call = await callTool(mcp.client, 'update_campaign_draft', {
        campaign_id: draft.id,
        version: draft.version,
        subject: 'The winter blend is back',
      });
      outputs.expectValid('update_campaign_draft', call);
      const updated = call.structured as Campaign;
      expect(updated).toMatchObject({
        ...draft,
        subject: 'The winter blend is back',
        version: draft.version + 1,
        updated_at: expect.any(String) as string,
      });
      draft = updated;
    });

    it('list_campaigns returns summaries without bodies, newest first, and pages with next_cursor', async () => {
      service.clock.advance(1000); // newest first: give the second draft a later creation time
      const second = await callTool(mcp.client, 'create_campaign_draft', { name: 'Second draft' });
      outputs.expectValid('create_campaign_draft', second);
      const firstPage = await callTool(mcp.client, 'list_campaigns', { limit: 1 });
      outputs.expectValid('list_campaigns', firstPage);
      const page = firstPage.structured as { campaigns: Campaign[]; next_cursor: string | null };
      expect(page.campaigns.map((c) => c.name)).toEqual(['Second draft']);
      expect(page.campaigns[0]).not.toHaveProperty('body_html');
      expect(page.next_cursor).toEqual(expect.any(String));

      const nextPage = await callTool(mcp.client, 'list_campaigns', {
        limit: 1,
        cursor: page.next_cursor,
        status: 'draft',
      });
      outputs.expectValid('list_campaigns', nextPage);
      expect(nextPage.structured).toEqual({
        campaigns: [
          {
            id: draft.id,
            workspace_id: workspaceId,
            name: draft.name,
            subject: 'The winter blend is back',
            preheader: draft.preheader,
            status: 'draft',
            version: draft.version,
            created_at: expect.any(String) as string,
            updated_at: expect.any(String) as string,
          },
        ],
        next_cursor: null,
      });
    });

    it('returns a version_mismatch tool error that says to re-read the campaign, and overwrites nothing', async () => {
      const call = await callTool(mcp.client, 'update_campaign_draft', {
        campaign_id: draft.id,
        version: draft.version - 1,
        subject: 'A stale edit',
      });
      expect(call.isError).toBe(true);
      expect(call.text).toContain('version_mismatch (HTTP 412)');
      expect(call.text).toMatch(/Resolution: \S/);
      expect(call.text).toMatch(/Next step: .*call get_campaign/);
      const current = await callTool(mcp.client, 'get_campaign', { campaign_id: draft.id });
      expect(current.structured).toEqual(draft);
    });

    it('returns a campaign_not_draft tool error for a scheduled campaign', async () => {
      const created = await createCampaign(service.deps, OPERATOR, workspaceId, {
        name: 'Already scheduled',
        subject: '',
        preheader: '',
        body_html: '',
        body_text: '',
      });
      await scheduleCampaign(service.deps, OPERATOR, { workspaceId, id: created.id, ifMatch: undefined });
      const call = await callTool(mcp.client, 'update_campaign_draft', {
        campaign_id: created.id,
        version: created.version + 1,
        subject: 'Too late',
      });
      expect(call.isError).toBe(true);
      expect(call.text).toContain('campaign_not_draft (HTTP 409)');
      expect(call.text).toMatch(/Resolution: \S/);
      expect(call.text).toMatch(/Next step: .*create_campaign_draft/);
    });

    it('returns a campaign_not_found tool error for an unknown campaign', async () => {
      const call = await callTool(mcp.client, 'get_campaign', { campaign_id: 'cmp_doesnotexist' });
      expect(call.isError).toBe(true);
      expect(call.text).toContain('campaign_not_found (HTTP 404)');
      expect(call.text).toContain('cmp_doesnotexist');
      expect(call.text).toMatch(/Resolution: \S/);
      expect(call.text).toMatch(/Next step: .*list_campaigns/);
    });

    it("returns the service's field errors for an invalid draft", async () => {
      const call = await callTool(mcp.client, 'create_campaign_draft', {
        name: 'Header injection',
        subject: 'Hello\r\nBcc: everyone@example.com',
      });
      expect(call.isError).toBe(true);
      expect(call.text).toContain('invalid_request (HTTP 400)');
      expect(call.text).toMatch(/Field errors:\n- subject: must be a single line/);
      expect(call.text).toMatch(/Resolution: /);
    });

    it('refuses an update that changes nothing without calling the service', async () => {
      const call = await callTool(mcp.client, 'update_campaign_draft', {
        campaign_id: draft.id,
        version: draft.version,
      });
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/Nothing to change/);
    });
  });

  describe('errors and security', () => {
    it('returns a workspace_forbidden tool error for a workspace the user is not a member of', async () => {
      for (const [tool, args] of [
        ['get_brand_context', {}],
        ['list_campaigns', {}],
        ['create_campaign_draft', { name: 'Trespass' }],
      ] as const) {
        const call = await callTool(mcp.client, tool, { workspace_id: otherWorkspaceId, ...args });
        expect(call.isError, tool).toBe(true);
        expect(call.text, tool).toContain('workspace_forbidden (HTTP 403)');
        expect(call.text, tool).toMatch(/Resolution: \S/);
      }
    });

    it('returns a workspace_not_found tool error for an unknown workspace', async () => {
      const call = await callTool(mcp.client, 'list_campaigns', {
        workspace_id: 'ws_doesnotexist000000000000',
      });
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/workspace_(not_found \(HTTP 404\)|forbidden \(HTTP 403\))/);
    });

    it('keeps answering after every error above', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', { fields: ['name'] });
      outputs.expectValid('get_brand_context', call);
      expect(call.structured).toMatchObject({ name: 'Acme Coffee' });
    });

    it('writes nothing but JSON-RPC messages to stdout, also around errors, and exits when stdin closes', async () => {
      const exchange = await rawExchange(
        { BRAND_CONTEXT_URL: service.baseUrl, BRAND_CONTEXT_ACCESS_TOKEN: token },
        [
          { method: 'tools/call', params: { name: 'get_brand_context', arguments: {} } },
          {
            method: 'tools/call',
            params: { name: 'get_campaign', arguments: { campaign_id: 'cmp_unknown' } },
          },
          { method: 'resources/read', params: { uri: 'brand-context://brand' } },
          { method: 'prompts/get', params: { name: 'draft_on_brand_email', arguments: { topic: 'tea' } } },
        ],
      );
      expect(exchange.stdoutLines.length).toBeGreaterThanOrEqual(5);
      for (const line of exchange.stdoutLines) {
        expect(JSON.parse(line)).toMatchObject({ jsonrpc: '2.0' });
      }
      expect([...exchange.responses.keys()].sort()).toEqual([1, 2, 3, 4, 5]);
      expect(exchange.responses.get(3)).toMatchObject({ result: { isError: true } });
      expect(exchange.exitCode).toBe(0);
      expect(exchange.stderr).not.toContain(token);
    });

    it('never writes the token to stderr', () => {
      expect(mcp.stderr()).toContain('serving on stdio');
      expect(mcp.stderr()).toContain('get_campaign failed: campaign_not_found');
      expect(mcp.stderr()).not.toContain(token);
      expect(mcp.stderr()).not.toContain(token.split('.')[2]);
    });
  });
});
