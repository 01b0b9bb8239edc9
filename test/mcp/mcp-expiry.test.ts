import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { addUser } from '#test/support/users.js';
import {
  callTool,
  connectMcp,
  type LiveService,
  type McpSession,
  personalAccessToken,
  startLiveService,
} from './mcp-harness.js';

/**
 * The MCP server compares expiries with its own clock, the real one: the service's clock is set to it, so
 * that credentials made "10 days" from now expire 10 days from the MCP server's now.
 */
let service: LiveService;
let acmeId: string;

beforeAll(async () => {
  service = await startLiveService();
  service.clock.advance(Date.now() - service.clock.now());
  acmeId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Coffee' })).id;
  await replaceBrand(service.deps, OPERATOR, acmeId, parseBrandDocument(DEMO_BRAND));
});
afterAll(async () => {
  await service.close();
});

/** An MCP server with a personal access token of `tokenDays`, and a brand read key of `keyDays` if given. */
async function connect(tokenDays: number, keyDays?: number): Promise<McpSession> {
  const member = await addUser(service, { workspaceId: acmeId, role: 'member' });
  const { token } = await personalAccessToken(service, member.token, tokenDays);
  const brandKey =
    keyDays === undefined
      ? ''
      : (
          await createBrandKey(service.deps, OPERATOR, {
            workspaceId: acmeId,
            name: 'mcp',
            expiresInDays: keyDays,
          })
        ).key;
  return connectMcp({
    BRAND_CONTEXT_URL: service.baseUrl,
    BRAND_CONTEXT_ACCESS_TOKEN: token,
    BRAND_READ_KEY: brandKey,
  });
}

const DATE = String.raw`\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC`;

describe('brand-context mcp: credentials far from expiry', () => {
  let mcp: McpSession;

  beforeAll(async () => {
    mcp = await connect(30, 90);
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('adds no line to the answers', async () => {
    for (const [tool, args] of [
      ['get_brand_context', { sections: ['name'] }],
      ['search_brand_knowledge', { query: 'roast' }],
      ['list_campaigns', {}],
    ] as const) {
      const call = await callTool(mcp.client, tool, args);
      expect(call.isError, call.text).toBe(false);
      expect(call.blocks, tool).toHaveLength(1);
      expect(call.text, tool).not.toMatch(/expires/);
    }
  });
});

describe('brand-context mcp: an access token that expires in 10 days', () => {
  let mcp: McpSession;

  beforeAll(async () => {
    mcp = await connect(10);
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('ends each answer with one line saying when it expires and to create a new personal access token', async () => {
    const notice = new RegExp(
      `^Tell the user: the Brand Context access token \\(BRAND_CONTEXT_ACCESS_TOKEN\\) expires ${DATE} \\(in 10 days\\); create a new personal access token and put the new one in the MCP server configuration\\.$`,
    );
    for (const [tool, args] of [
      ['get_brand_context', { format: 'json', sections: ['name'] }],
      ['list_campaigns', {}],
    ] as const) {
      const call = await callTool(mcp.client, tool, args);
      expect(call.isError, call.text).toBe(false);
      expect(call.blocks, tool).toHaveLength(2);
      expect(call.blocks[1], tool).toMatch(notice);
      // The answer itself stays what it was: JSON here.
      expect(JSON.parse(call.blocks[0] ?? ''), tool).toBeTypeOf('object');
    }
  });

  it('says so on an error too', async () => {
    const call = await callTool(mcp.client, 'get_campaign', { campaign_id: 'cmp_unknown' });
    expect(call.isError).toBe(true);
    expect(call.blocks).toHaveLength(2);
    expect(call.blocks[1]).toMatch(/access token .* expires/);
  });
});

describe('brand-context mcp: a brand read key that expires in 10 days', () => {
  let mcp: McpSession;

  beforeAll(async () => {
    mcp = await connect(30, 10);
  });
  afterAll(async () => {
    await mcp.close();
  });

  it('ends each brand answer with one line saying when the key expires and to rotate it in Agent Access', async () => {
    for (const [tool, args] of [
      ['get_brand_context', {}],
      ['search_brand_knowledge', { query: 'roast' }],
    ] as const) {
      const call = await callTool(mcp.client, tool, args);
      expect(call.isError, call.text).toBe(false);
      expect(call.blocks, tool).toHaveLength(2);
      expect(call.blocks[1], tool).toMatch(
        new RegExp(
          `^Tell the user: the Brand Context brand read key \\(BRAND_READ_KEY\\) expires ${DATE} \\(in 10 days\\); rotate it in Settings → Agent Access and put the new one in the MCP server configuration\\.$`,
        ),
      );
    }
  });

  it('adds nothing to the campaign tools, which use the access token', async () => {
    const call = await callTool(mcp.client, 'list_campaigns');
    expect(call.blocks).toHaveLength(1);
  });
});
