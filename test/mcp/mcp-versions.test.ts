import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { pollUntil } from '../cli/cli-process.js';
import { describeEachBackend } from '#test/support/databases.js';
import { connectMcp as connectHttpMcp, mcpFixtureOptions, textOf } from '#test/support/fixtures/mcp.js';
import { useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';
import {
  callTool,
  connectMcp,
  type LiveService,
  type McpSession,
  personalAccessToken,
  startLiveService,
} from './mcp-harness.js';

const BRAND = 'brand-context://brand';
const VOICE = `${BRAND}/voice`;
const COLORS = `${BRAND}/colors`;
/** How often the stdio server asks for the brand's version in these tests. */
const WATCH_MS = 100;

/** Saves the brand with `voice`, as another editor would, and answers its new version. */
async function saveVoice(service: Pick<LiveService, 'deps'>, workspaceId: string, voice: string) {
  const saved = await replaceBrand(
    service.deps,
    OPERATOR,
    workspaceId,
    parseBrandDocument({ ...DEMO_BRAND, voice }),
  );
  return saved.version;
}

describe('brand-context mcp (stdio): brand versions', () => {
  let service: LiveService;
  let mcp: McpSession;
  let workspaceId: string;
  let demoVersion: number;
  /** The resources the server said were updated, in order. */
  const updated: string[] = [];

  beforeAll(async () => {
    service = await startLiveService();
    workspaceId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Coffee' })).id;
    demoVersion = (await replaceBrand(service.deps, OPERATOR, workspaceId, parseBrandDocument(DEMO_BRAND)))
      .version;
    const member = await addUser(service, { workspaceId, role: 'member' });
    const { token } = await personalAccessToken(service, member.token);
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_CONTEXT_ACCESS_TOKEN: token,
      BRAND_CONTEXT_WORKSPACE_ID: workspaceId,
      BRAND_CONTEXT_WATCH_MS: String(WATCH_MS),
    });
    mcp.client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
  });
  afterAll(async () => {
    await mcp.close();
    await service.close();
  });

  it('reads a pinned version with get_brand_context, in Markdown and JSON, with sections', async () => {
    const latest = await saveVoice(service, workspaceId, 'Bold and brief.');
    try {
      const pinned = await callTool(mcp.client, 'get_brand_context', {
        version: demoVersion,
        sections: ['voice'],
      });
      expect(pinned.isError, pinned.text).toBe(false);
      expect(pinned.text).toBe(`# Acme Coffee\n\n## Voice\n${String(DEMO_BRAND.voice)}\n`);
      const json = await callTool(mcp.client, 'get_brand_context', { version: demoVersion, format: 'json' });
      expect(JSON.parse(json.text)).toMatchObject({ version: demoVersion, voice: DEMO_BRAND.voice });
      const now = await callTool(mcp.client, 'get_brand_context', { sections: ['voice'] });
      expect(now.text).toContain('Bold and brief.');
      const same = await callTool(mcp.client, 'get_brand_context', { version: latest, sections: ['voice'] });
      expect(same.text).toBe(now.text);
    } finally {
      demoVersion = await saveVoice(service, workspaceId, String(DEMO_BRAND.voice));
    }
  });

  it('tells the model what to do about a version the brand does not have', async () => {
    const call = await callTool(mcp.client, 'get_brand_context', { version: 9999 });
    expect(call.isError).toBe(true);
    expect(call.text).toMatch(/^Brand Context error version_not_found \(HTTP 404\)/);
    expect(call.text).toMatch(/Next step: Call get_brand_context without version/);
    const zero = await callTool(mcp.client, 'get_brand_context', { version: 0 });
    expect(zero.isError).toBe(true);
    expect(zero.text).toMatch(/invalid_request[\s\S]*- version: /);
  });

  it('advertises resource subscriptions', () => {
    expect(mcp.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
  });

  it('notifies the subscribed brand resources, and only those, when a version is published', async () => {
    await mcp.client.subscribeResource({ uri: BRAND });
    await mcp.client.subscribeResource({ uri: VOICE });
    updated.length = 0;
    await saveVoice(service, workspaceId, 'Published while subscribed.');
    await pollUntil(
      () => Promise.resolve([...updated]),
      (uris) => uris.includes(BRAND) && uris.includes(VOICE),
    );
    expect(updated).not.toContain(COLORS);
    // Read again, the resource is the new version.
    const read = await mcp.client.readResource({ uri: VOICE });
    const [content] = read.contents;
    expect(content && 'text' in content ? content.text : '').toContain('Published while subscribed.');
  });

  it('notifies once per version, not on every check', async () => {
    updated.length = 0;
    await saveVoice(service, workspaceId, 'Once.');
    await pollUntil(
      () => Promise.resolve([...updated]),
      (uris) => uris.includes(BRAND),
    );
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS * 5));
    expect(updated.filter((uri) => uri === BRAND)).toEqual([BRAND]);
  });

  it('stops notifying a resource once unsubscribed', async () => {
    await mcp.client.unsubscribeResource({ uri: VOICE });
    updated.length = 0;
    await saveVoice(service, workspaceId, 'After unsubscribing voice.');
    await pollUntil(
      () => Promise.resolve([...updated]),
      (uris) => uris.includes(BRAND),
    );
    expect(updated).not.toContain(VOICE);
    await mcp.client.unsubscribeResource({ uri: BRAND });
    updated.length = 0;
    await saveVoice(service, workspaceId, 'Nobody listens.');
    await new Promise((resolve) => setTimeout(resolve, WATCH_MS * 5));
    expect(updated).toEqual([]);
  });

  it('refuses a subscription to a resource it does not serve', async () => {
    await expect(mcp.client.subscribeResource({ uri: `${BRAND}/nothing` })).rejects.toThrow(/nothing/);
  });
});

describe('brand-context mcp (stdio) at the 2026-07-28 revision: brand versions', () => {
  let service: LiveService;
  let mcp: McpSession;
  let workspaceId: string;
  const updated: string[] = [];

  beforeAll(async () => {
    service = await startLiveService();
    workspaceId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Coffee' })).id;
    const member = await addUser(service, { workspaceId, role: 'member' });
    const { token } = await personalAccessToken(service, member.token);
    mcp = await connectMcp(
      {
        BRAND_CONTEXT_URL: service.baseUrl,
        BRAND_CONTEXT_ACCESS_TOKEN: token,
        BRAND_CONTEXT_WORKSPACE_ID: workspaceId,
        BRAND_CONTEXT_WATCH_MS: String(WATCH_MS),
      },
      { modern: true },
    );
    mcp.client.setNotificationHandler('notifications/resources/updated', (notification) => {
      updated.push(notification.params.uri);
    });
  });
  afterAll(async () => {
    await mcp.close();
    await service.close();
  });

  it('notifies a listener of the resources it listens to when a version is published', async () => {
    expect(mcp.client.getProtocolEra()).toBe('modern');
    expect(mcp.client.getServerCapabilities()?.resources?.subscribe).toBe(true);
    const subscription = await mcp.client.listen({ resourceSubscriptions: [VOICE] });
    try {
      // The watch learns the version it starts from before the brand moves.
      await new Promise((resolve) => setTimeout(resolve, WATCH_MS * 3));
      await saveVoice(service, workspaceId, 'Listened to.');
      await pollUntil(
        () => Promise.resolve([...updated]),
        (uris) => uris.includes(VOICE),
      );
      expect(updated).toEqual([VOICE]);
    } finally {
      await subscription.close();
    }
  });
});

describeEachBackend('POST /mcp: brand versions', (backend) => {
  const fixture = useFixture(backend, mcpFixtureOptions());
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it('reads a pinned version with get_brand_context', async () => {
    const f = fixture();
    const before = (await f.deps.store.brand.get(f.workspaceId))?.version ?? 0;
    await saveVoice(f, f.workspaceId, 'Bold and brief.');
    try {
      client = await connectHttpMcp(f.baseUrl, f.ownerPat);
      const pinned = await client.callTool({
        name: 'get_brand_context',
        arguments: { workspace_id: f.workspaceId, version: before, sections: ['voice'] },
      });
      expect(textOf(pinned)).toBe(`# Acme Coffee\n\n## Voice\n${String(DEMO_BRAND.voice)}\n`);
      const missing = await client.callTool({
        name: 'get_brand_context',
        arguments: { workspace_id: f.workspaceId, version: 9999 },
      });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/^Brand Context error version_not_found \(HTTP 404\)/);
      const zero = await client.callTool({
        name: 'get_brand_context',
        arguments: { workspace_id: f.workspaceId, version: 0 },
      });
      expect(zero.isError).toBe(true);
      expect(textOf(zero)).toMatch(/invalid_request[\s\S]*- version: /);
    } finally {
      await saveVoice(f, f.workspaceId, String(DEMO_BRAND.voice));
    }
  });

  it('does not advertise resource subscriptions: a stateless endpoint has no stream to notify on', async () => {
    const f = fixture();
    client = await connectHttpMcp(f.baseUrl, f.ownerPat);
    expect(client.getServerCapabilities()?.resources).toBeDefined();
    expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
    await client.close();
    client = await connectHttpMcp(f.baseUrl, f.ownerPat, { negotiate: true });
    expect(client.getServerCapabilities()?.resources?.subscribe).toBeUndefined();
  });
});
