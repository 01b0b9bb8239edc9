import type { Client } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrandCheckResult } from '../../src/contract/brand-check.js';
import { parseBrandDocument } from '../../src/core/brand-context.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { replaceBrand } from '../../src/services/brand/brand.js';
import { DEMO_BRAND } from '../../src/services/demo/demo-brand.js';
import { createBrandKey } from '../../src/services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { CHECK_RULES, publishCheckRules } from '#test/support/fixtures/brand-check.js';
import { connectMcp as connectHttpMcp, mcpFixtureOptions, textOf } from '#test/support/fixtures/mcp.js';
import { unchanged, useFixture } from '#test/support/http-fixture.js';
import { callTool, connectMcp, type LiveService, type McpSession, startLiveService } from './mcp-harness.js';

const BROKEN = 'Our cheap joe is great!!';

/** The rule ids of a check's findings, in order. */
const ruleIds = (result: unknown) => (result as BrandCheckResult).findings.map((finding) => finding.rule_id);

describe('brand-context mcp (stdio): check_brand_compliance', () => {
  let service: LiveService;
  let mcp: McpSession;
  let workspaceId: string;
  let otherWorkspaceId: string;
  let rulesVersion: number;

  beforeAll(async () => {
    service = await startLiveService();
    workspaceId = (await createWorkspace(service.deps, OPERATOR, { name: 'Acme Coffee' })).id;
    rulesVersion = (
      await replaceBrand(
        service.deps,
        OPERATOR,
        workspaceId,
        parseBrandDocument({ ...DEMO_BRAND, rules: CHECK_RULES }),
      )
    ).version;
    otherWorkspaceId = (await createWorkspace(service.deps, OPERATOR, { name: 'Other Brand' })).id;
    const key = await createBrandKey(service.deps, OPERATOR, { workspaceId, name: 'agent' });
    mcp = await connectMcp({
      BRAND_CONTEXT_URL: service.baseUrl,
      BRAND_READ_KEY: key.key,
      BRAND_CONTEXT_WORKSPACE_ID: workspaceId,
    });
  });
  afterAll(async () => {
    await mcp.close();
    await service.close();
  });

  it('answers the findings as structured content and the same JSON as text, with a brand read key alone', async () => {
    const call = await callTool(mcp.client, 'check_brand_compliance', { content: { text: BROKEN } });
    expect(call.isError).toBe(false);
    const result = call.structured as BrandCheckResult;
    expect(result).toMatchObject({ passed: false, version: rulesVersion });
    expect(ruleIds(result)).toEqual(['rl_banned', 'rl_preferred', 'rl_bang']);
    expect(JSON.parse(call.blocks[0] ?? '')).toEqual(result);
    for (const finding of result.findings)
      expect(BROKEN.slice(finding.start ?? 0, finding.end ?? 0)).toBe(finding.excerpt);
  });

  it('passes copy that keeps the rules', async () => {
    const call = await callTool(mcp.client, 'check_brand_compliance', {
      workspace_id: workspaceId,
      content: { subject: 'Fresh coffee', html: '<p>Roasted this week.</p>' },
    });
    expect(call.structured).toEqual({ passed: true, version: rulesVersion, findings: [] });
  });

  it('checks against a pinned version, and says what to do about one the brand does not have', async () => {
    const latest = (
      await replaceBrand(
        service.deps,
        OPERATOR,
        workspaceId,
        parseBrandDocument({ ...DEMO_BRAND, rules: [] }),
      )
    ).version;
    const now = await callTool(mcp.client, 'check_brand_compliance', { content: { text: BROKEN } });
    expect(now.structured).toEqual({ passed: true, version: latest, findings: [] });
    const pinned = await callTool(mcp.client, 'check_brand_compliance', {
      content: { text: BROKEN },
      version: rulesVersion,
    });
    expect(ruleIds(pinned.structured)).toEqual(['rl_banned', 'rl_preferred', 'rl_bang']);
    const missing = await callTool(mcp.client, 'check_brand_compliance', {
      content: { text: BROKEN },
      version: 9999,
    });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^Brand Context error version_not_found \(HTTP 404\)/);
  });

  it("refuses another workspace's brand with workspace_forbidden and its next step", async () => {
    const call = await callTool(mcp.client, 'check_brand_compliance', {
      workspace_id: otherWorkspaceId,
      content: { text: 'Hello' },
    });
    expect(call.isError).toBe(true);
    expect(call.text).toMatch(/workspace_forbidden \(HTTP 403\)/);
    expect(call.text).toMatch(/Next step: /);
  });
});

describeEachBackend('POST /mcp: check_brand_compliance in the service', (backend) => {
  const fixture = useFixture(backend, mcpFixtureOptions());
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });

  it("checks with a brand read key or a member's token as the HTTP check does, and stores nothing", async () => {
    const f = fixture();
    const version = await publishCheckRules(f);
    for (const credential of [f.brandKey, f.ownerPat]) {
      client = await connectHttpMcp(f.baseUrl, credential);
      const connected = client;
      const result = await unchanged(f, () =>
        connected.callTool({
          name: 'check_brand_compliance',
          arguments: { workspace_id: f.workspaceId, content: { subject: 'So cheap', text: BROKEN } },
        }),
      );
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toMatchObject({ passed: false, version });
      expect(ruleIds(result.structuredContent)).toEqual([
        'rl_banned',
        'rl_banned',
        'rl_preferred',
        'rl_bang',
      ]);
      await client.close();
      client = undefined;
    }
  });

  it('refuses content the HTTP check refuses, naming the field', async () => {
    const f = fixture();
    client = await connectHttpMcp(f.baseUrl, f.brandKey);
    const result = await client.callTool({
      name: 'check_brand_compliance',
      arguments: { workspace_id: f.workspaceId, content: { subject: 'x'.repeat(256) } },
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/invalid_request/);
    expect(textOf(result)).toMatch(/subject/);
  });
});
