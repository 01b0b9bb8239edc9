import { countTokens } from 'gpt-tokenizer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrandContext } from '../../src/core/brand-context.js';
import { BRAND_SECTIONS, parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { createCampaign, scheduleCampaign } from '../../src/services/campaigns/campaigns.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import type { Campaign } from '../../src/mcp/schemas.js';
import { addUser } from '#test/support/users.js';
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
  'check_brand_compliance',
  'create_campaign_draft',
  'get_brand_context',
  'get_campaign',
  'list_campaigns',
  'search_brand_knowledge',
  'update_campaign_draft',
];
const CAMPAIGN_TOOLS = ['create_campaign_draft', 'get_campaign', 'list_campaigns', 'update_campaign_draft'];

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
    it('lists the seven tools, each with a description and an input schema, the campaign tools with an output schema', async () => {
      const { tools } = await mcp.client.listTools();
      expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS);
      for (const tool of tools) {
        expect(tool.description?.length, tool.name).toBeGreaterThan(80);
        expect(tool.inputSchema.type, tool.name).toBe('object');
        expect(tool.outputSchema?.type, tool.name).toBe(
          CAMPAIGN_TOOLS.includes(tool.name) ? 'object' : undefined,
        );
      }
    });

    it('keeps all seven tool definitions within 2,000 tokens (o200k), as a client sends them to the model', async () => {
      const { tools } = await mcp.client.listTools();
      expect(countTokens(JSON.stringify(tools))).toBeLessThanOrEqual(2000);
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

    it('advertises slim campaign schemas: every field, without prose, draft URL or 2^53 bound', async () => {
      const { tools } = await mcp.client.listTools();
      const output = (name: string) =>
        tools.find((tool) => tool.name === name)?.outputSchema as
          { required?: string[]; properties?: Record<string, unknown> } | undefined;
      for (const tool of ['get_campaign', 'create_campaign_draft', 'update_campaign_draft']) {
        expect(output(tool)?.required, tool).toEqual([
          'id',
          'workspace_id',
          'name',
          'subject',
          'preheader',
          'body_html',
          'body_text',
          'status',
          'version',
          'created_at',
          'updated_at',
        ]);
        expect(output(tool)?.properties?.version, tool).toEqual({ type: 'integer' });
      }
      const listed = JSON.stringify(output('list_campaigns'));
      expect(listed).toContain('"next_cursor"');
      expect(listed).not.toContain('body_html');
      for (const tool of tools) {
        const text = JSON.stringify(tool);
        for (const noise of ['"$schema"', '9007199254740991'])
          expect(text, `${tool.name} ${noise}`).not.toContain(noise);
        expect(JSON.stringify(tool.outputSchema ?? {}), tool.name).not.toContain('"description"');
      }
    });

    it('tells the model to re-read the campaign when update_campaign_draft meets a version conflict', async () => {
      const { tools } = await mcp.client.listTools();
      const update = tools.find((tool) => tool.name === 'update_campaign_draft');
      expect(update?.inputSchema.required).toEqual(expect.arrayContaining(['campaign_id', 'version']));
      expect(update?.description).toMatch(/version_mismatch/);
      expect(update?.description).toMatch(/get_campaign again/);
    });

    it('lists the brand resource, one resource per section, and the email prompt with its arguments', async () => {
      const { resources } = await mcp.client.listResources();
      expect(resources.map(({ uri, mimeType }) => ({ uri, mimeType }))).toEqual(
        ['brand-context://brand', ...BRAND_SECTIONS.map((section) => `brand-context://brand/${section}`)].map(
          (uri) => ({ uri, mimeType: 'text/markdown' }),
        ),
      );
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
    it('get_brand_context answers the whole brand of the only workspace once, as Markdown', async () => {
      const call = await callTool(mcp.client, 'get_brand_context');
      expect(call.isError, call.text).toBe(false);
      expect(call.structured).toBeUndefined();
      expect(call.text).toMatch(/^# Acme Coffee\n\nSmall-batch coffee roaster/);
      for (const heading of [
        '## Voice',
        '## Colors',
        '## Fonts',
        '## Knowledge',
        '## Assets',
        '## Preferences',
      ])
        expect(call.text).toContain(`\n${heading}\n`);
      expect(call.text).toContain('| primary | #6B3E26 |');
      expect(call.text).toContain('- **Emoji**: At most one emoji per email, never in subject lines.');
      expect(call.text).not.toContain(workspaceId);
    });

    it('get_brand_context with sections ["voice"] answers only the voice, under the brand name', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', {
        workspace_id: workspaceId,
        sections: ['voice'],
      });
      expect(call.isError, call.text).toBe(false);
      expect(call.text).toMatch(/^# Acme Coffee\n\n## Voice\nWarm, plain-spoken and curious/);
      expect(call.text).not.toContain('## Colors');
    });

    it('get_brand_context with format json answers the JSON of the service, with the asked sections', async () => {
      const whole = await callTool(mcp.client, 'get_brand_context', { format: 'json' });
      expect(whole.structured).toBeUndefined();
      const context = JSON.parse(whole.text) as BrandContext;
      expect(context).toMatchObject({ workspace_id: workspaceId, name: 'Acme Coffee' });
      expect(context.knowledge).toHaveLength(20);
      expect(context.version).toBeGreaterThan(1);

      const some = await callTool(mcp.client, 'get_brand_context', {
        format: 'json',
        sections: ['colors', 'voice'],
      });
      const picked = JSON.parse(some.text) as Partial<BrandContext>;
      expect(Object.keys(picked)).toEqual(['workspace_id', 'voice', 'colors', 'updated_at', 'version']);
      expect(picked.colors?.accent).toBe('#D9822B');
    });

    it('get_brand_context filters knowledge by kind and tag', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', {
        sections: ['knowledge'],
        knowledge_kinds: ['guideline'],
        knowledge_tags: ['STYLE'],
      });
      expect(call.isError, call.text).toBe(false);
      expect(call.text).toContain('### Guidelines\n- **Emoji**');
      expect(call.text).not.toContain('### Facts');
      expect(call.text).not.toContain('Talk like a barista');
    });

    it('get_brand_context with format dtcg answers design tokens of the colors and fonts', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', { format: 'dtcg' });
      expect(call.isError, call.text).toBe(false);
      const tokens = JSON.parse(call.text) as {
        color: { primary: { $value: string } };
        font: { heading: { family: { $value: string[] } } };
      };
      expect(tokens.color.primary.$value).toBe('#6B3E26');
      expect(tokens.font.heading.family.$value[0]).toBe('Fraunces');
    });

    it('treats an empty workspace_id as omitted, as models often send one', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', { workspace_id: '', sections: ['name'] });
      expect(call).toMatchObject({ isError: false, text: '# Acme Coffee\n' });
    });

    it('get_brand_context refuses a section that does not exist, naming the argument', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', { sections: ['logo'] });
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/sections/);
    });

    it('get_brand_context refuses a knowledge filter without the knowledge section, saying what it needs', async () => {
      const call = await callTool(mcp.client, 'get_brand_context', {
        sections: ['voice'],
        knowledge_tags: ['style'],
      });
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/knowledge_tags/);
      expect(call.text).toContain('knowledge_tags: needs "knowledge" in sections');
    });

    it('search_brand_knowledge answers the best entries as Markdown bullets, title matches first', async () => {
      const call = await callTool(mcp.client, 'search_brand_knowledge', { query: 'emoji in subject lines' });
      expect(call.isError, call.text).toBe(false);
      expect(call.structured).toBeUndefined();
      const bullets = call.text.split('\n');
      expect(bullets[0]).toBe(
        '- **Emoji** (guideline; tags: style): At most one emoji per email, never in subject lines.',
      );
      expect(bullets.length).toBeLessThanOrEqual(5);
    });

    it('search_brand_knowledge takes kinds, tags and limit, and ignores accents', async () => {
      const call = await callTool(mcp.client, 'search_brand_knowledge', {
        query: 'cafes portland',
        kinds: ['fact'],
        limit: 2,
      });
      expect(call.text.split('\n')).toEqual([
        '- **Cafés** (fact; tags: locations): Acme runs three cafés in Portland: Alberta, Division and the Pearl.',
        '- **Founded** (fact; tags: history): Acme Coffee was founded in Portland, Oregon, in 2012 by two former baristas.',
      ]);
    });

    it('search_brand_knowledge names the filters that left nothing to match, and suggests dropping them', async () => {
      const kinds = await callTool(mcp.client, 'search_brand_knowledge', {
        query: 'coffee',
        kinds: ['reference'],
        limit: 2,
      });
      expect(kinds).toMatchObject({
        isError: false,
        text: 'No knowledge entry matches "coffee" among those with kinds ["reference"]. Search again without kinds, or call get_brand_context with sections ["knowledge"] to read them all.',
      });
      const both = await callTool(mcp.client, 'search_brand_knowledge', {
        query: 'portland',
        tags: ['impact'],
        kinds: ['fact'],
      });
      expect(both.text).toBe(
        'No knowledge entry matches "portland" among those with kinds ["fact"] and tags ["impact"]. Search again without kinds and tags, or call get_brand_context with sections ["knowledge"] to read them all.',
      );
    });

    it('search_brand_knowledge says when nothing matches and points at the whole knowledge section', async () => {
      const call = await callTool(mcp.client, 'search_brand_knowledge', {
        query: 'shipping warranty claims',
      });
      expect(call).toMatchObject({
        isError: false,
        text: 'No knowledge entry matches "shipping warranty claims". Call get_brand_context with sections ["knowledge"] to read them all.',
      });
    });

    it('reads the brand resource as Markdown', async () => {
      const { contents } = await mcp.client.readResource({ uri: 'brand-context://brand' });
      expect(contents).toHaveLength(1);
      const [content] = contents;
      expect(content).toMatchObject({ uri: 'brand-context://brand', mimeType: 'text/markdown' });
      const text = content && 'text' in content ? content.text : '';
      expect(text).toMatch(/^# Acme Coffee\n/);
      expect(text).toContain('\n## Knowledge\n');
    });

    it('reads one section as a resource', async () => {
      const { contents } = await mcp.client.readResource({ uri: 'brand-context://brand/colors' });
      const [content] = contents;
      expect(content).toMatchObject({ uri: 'brand-context://brand/colors', mimeType: 'text/markdown' });
      const text = content && 'text' in content ? content.text : '';
      expect(text).toMatch(/^# Acme Coffee\n\n## Colors\n\| Use \| Hex \| Name \|/);
      expect(text).toContain('| accent | #D9822B |');
      expect(text).not.toContain('## Voice');
    });

    it('the prompt embeds the brand as Markdown and asks for an on-brand email saved with create_campaign_draft', async () => {
      const prompt = await mcp.client.getPrompt({
        name: 'draft_on_brand_email',
        arguments: { topic: 'our winter blend', audience: 'long-time subscribers' },
      });
      expect(prompt.description).toBe('On-brand email for Acme Coffee about our winter blend');
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
        '"## Voice"',
        '"## Colors" table',
        '"### Guidelines"',
      ])
        expect(text).toContain(part);
      // The demo brand's skills ask for a subject under 45 characters and for "the price", which its knowledge lacks.
      expect(text).toContain("the brand's skills and guidelines win over the generic lengths");
      expect(text).toContain('write a clear placeholder such as [price] instead, and tell the user');
      expect(text).not.toMatch(/do not invent prices/);
      expect(text).toMatch(/\nBrand context:\n\n# Acme Coffee\n[\s\S]*\n## Voice\nWarm/);
      expect(text).not.toContain('```json');
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
      const call = await callTool(mcp.client, 'get_brand_context', { sections: ['name'] });
      expect(call).toMatchObject({ isError: false, text: '# Acme Coffee\n' });
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
