import { afterEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/client';
import { isoAt } from '../../core/clock.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { createWorkspace } from '../../services/accounts/workspaces.js';
import { createPersonalToken } from '../../services/auth/tokens.js';
import { describeEachBackend } from '#test/support/databases.js';
import { emailKeys } from '#test/support/fixtures/email.js';
import { useFixture } from '#test/support/http-fixture.js';
import {
  connectMcp,
  FakeAccessTokens,
  initializeRequest,
  mcpFixtureOptions,
  postMcp,
  textOf,
} from '#test/support/fixtures/mcp.js';

describeEachBackend('POST /mcp: errors', (backend) => {
  const tokens = new FakeAccessTokens();
  const fixture = useFixture(backend, mcpFixtureOptions(tokens));
  let client: Client | undefined;
  afterEach(async () => {
    await client?.close();
    client = undefined;
  });
  const metadataUrl = () => `${fixture().baseUrl}/.well-known/oauth-protected-resource/mcp`;

  describe('credentials', () => {
    it('answers 401 without a credential, pointing at the protected-resource metadata without an error', async () => {
      const f = fixture();
      const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'));
      expect(answer.status).toBe(401);
      expect(answer.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}"`);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(answer.message).toMatchObject({ status: 401, code: 'missing_token' });
    });

    it.each([
      ['a garbage token', 'garbage', 'invalid_token'],
      ['an unknown OAuth access token', 'oat_unknown', 'invalid_token'],
      ['a malformed brand read key', 'brk_short', 'malformed_key'],
    ])(
      'answers 401 to %s, pointing at the metadata with error="invalid_token"',
      async (_name, token, code) => {
        const f = fixture();
        const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), {
          authorization: `Bearer ${token}`,
        });
        expect(answer.status).toBe(401);
        expect(answer.headers.get('www-authenticate')).toBe(
          `Bearer resource_metadata="${metadataUrl()}", error="invalid_token"`,
        );
        expect(answer.message).toMatchObject({ code });
        expect(answer.text).not.toContain(token);
      },
    );

    it('makes the official client fail to connect without a credential', async () => {
      const f = fixture();
      await expect(connectMcp(f.baseUrl, 'not-a-token')).rejects.toThrow();
    });

    it('refuses a transactional email key with 403, as the API does', async () => {
      const f = fixture();
      const key = (await emailKeys(f)).emailKey;
      const answer = await postMcp(f.baseUrl, initializeRequest('2025-11-25'), {
        authorization: `Bearer ${key}`,
      });
      expect(answer.status).toBe(403);
      expect(answer.message).toMatchObject({ code: 'email_key_not_allowed' });
    });
  });

  describe('methods', () => {
    it.each(['GET', 'DELETE'])(
      'answers %s with 405: the endpoint is stateless and opens no stream',
      async (method) => {
        const f = fixture();
        const answer = await postMcp(f.baseUrl, undefined, { authorization: `Bearer ${f.ownerPat}` }, method);
        expect(answer.status).toBe(405);
      },
    );

    it('asks for a credential before telling which methods it takes', async () => {
      const f = fixture();
      expect((await postMcp(f.baseUrl, undefined, {}, 'GET')).status).toBe(401);
    });
  });

  describe('tool errors', () => {
    it('answers workspace_required, listing the ids, to a user of several workspaces who names none', async () => {
      const f = fixture();
      const second = await createWorkspace(f.deps, OPERATOR, { name: 'Second Brand' });
      await f.store.workspaces.addMember({
        workspaceId: second.id,
        userId: f.admin.user.id,
        role: 'member',
        createdAt: isoAt(f.clock),
      });
      const pat = await createPersonalToken(f.deps, f.admin.user, { name: 'Claude', expiresInDays: 30 });
      client = await connectMcp(f.baseUrl, pat.token);
      const result = await client.callTool({ name: 'get_brand_context', arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('workspace_required');
      expect(textOf(result)).toContain(second.id);
      expect(textOf(result)).not.toContain('BRAND_CONTEXT_WORKSPACE_ID');
    });

    it("answers the service's problem as the tool's error: code, detail, field errors and resolution", async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.apiKey);
      const tooLong = await client.callTool({
        name: 'create_campaign_draft',
        arguments: { name: 'Long', subject: 'x'.repeat(300) },
      });
      expect(tooLong.isError).toBe(true);
      expect(textOf(tooLong)).toContain('Brand Context error invalid_request (HTTP 400)');
      expect(textOf(tooLong)).toContain('- subject: must be at most 255 characters');
      const missing = await client.callTool({
        name: 'get_campaign',
        arguments: { campaign_id: 'cmp_missing' },
      });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('campaign_not_found');
      expect(textOf(missing)).toContain('Next step: Call list_campaigns');
    });

    it('answers version_mismatch to an update based on an old version, and keeps the newer one', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.apiKey);
      const created = await client.callTool({ name: 'create_campaign_draft', arguments: { name: 'V' } });
      const { id } = created.structuredContent as { id: string };
      const first = await client.callTool({
        name: 'update_campaign_draft',
        arguments: { campaign_id: id, version: 1, subject: 'First' },
      });
      expect(first.isError).toBeFalsy();
      const stale = await client.callTool({
        name: 'update_campaign_draft',
        arguments: { campaign_id: id, version: 1, subject: 'Stale' },
      });
      expect(stale.isError).toBe(true);
      expect(textOf(stale)).toContain('version_mismatch');
      expect(await f.store.campaigns.get(f.workspaceId, id)).toMatchObject({ subject: 'First', version: 2 });
    });

    it('does not know a tool the credential is not shown', async () => {
      const f = fixture();
      client = await connectMcp(f.baseUrl, f.brandKey);
      const result = await client
        .callTool({ name: 'create_campaign_draft', arguments: { name: 'Sneaky' } })
        .then(
          (answer) => textOf(answer),
          (error: unknown) => String(error),
        );
      expect(result).toMatch(/create_campaign_draft/);
      expect((await f.store.campaigns.list(f.workspaceId, { limit: 100 })).map((c) => c.name)).not.toContain(
        'Sneaky',
      );
    });
  });
});
