import { describe, expect, it } from 'vitest';
import { BRAND_KEY_LIFETIME_MS } from '../../../../core/key-lifecycle.js';
import { hashKey, WORKSPACE_API_KEY } from '../../../../core/secret-keys.js';
import { OPERATOR } from '../../../../services/audit/audit.js';
import type { CreatedKey } from '../../../../contract/keys.js';
import { createApiKey } from '../../../../services/keys/keys.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import {
  auditLog,
  call,
  callEach,
  type Fixture,
  outcome,
  problemOf,
  type RouteCall,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';
import {
  type Campaign,
  campaignsApi,
  campaignsUrl,
  campaignUrl,
  newDraft,
} from '#test/support/fixtures/campaigns.js';
import { mistype } from '#test/support/mistype.js';

const REALM = 'Bearer realm="brand-context"';

/** Every campaign route, for a caller of `workspaceId`, with a target campaign and a valid body. */
function campaignRoutes(workspaceId: string, campaignId: string): RouteCall[] {
  return [
    { method: 'GET', url: campaignsUrl(workspaceId) },
    { method: 'POST', url: campaignsUrl(workspaceId), body: { name: 'Intruder draft' } },
    { method: 'GET', url: campaignUrl(workspaceId, campaignId) },
    { method: 'PATCH', url: campaignUrl(workspaceId, campaignId), body: { subject: 'Hijacked' } },
    { method: 'POST', url: `${campaignUrl(workspaceId, campaignId)}/schedule` },
  ];
}

describeEachBackend('Campaign drafts API: security', (backend) => {
  const fixture = useFixture(backend);

  /** Calls every campaign route of `workspaceId` with `credential`; checks no table changed. */
  const everyRoute = (f: Fixture, credential: string, workspaceId: string, campaignId: string) =>
    unchanged(f, () => callEach(f, credential, campaignRoutes(workspaceId, campaignId)));

  describe('workspace boundaries', () => {
    it("answers 403 workspace_forbidden to another workspace's API key on every campaign route, and changes nothing", async () => {
      const f = fixture();
      const draft = await newDraft(f, { name: 'Confidential launch' });
      const responses = await everyRoute(f, f.otherApiKey, f.workspaceId, draft.id);
      expect(responses.map(outcome)).toEqual(Array(5).fill('403 workspace_forbidden'));
      for (const response of responses) {
        expect(response.body).not.toContain('Confidential launch');
        expect(response.body).not.toContain(draft.id);
      }
      expect((await campaignsApi(f, f.apiKey).get(draft.id)).json()).toEqual(draft);
    });

    it('answers 404 workspace_not_found to an API key on a workspace that does not exist', async () => {
      const f = fixture();
      const responses = await everyRoute(f, f.apiKey, 'ws_DoesNotExist0000000000000', 'cmp_x');
      expect(responses.map(outcome)).toEqual(Array(5).fill('404 workspace_not_found'));
    });

    it("answers 404 campaign_not_found to an API key that names this workspace's campaign under its own workspace", async () => {
      const f = fixture();
      const draft = await newDraft(f, { name: 'Not theirs' });
      const theirs = campaignsApi(f, f.otherApiKey, f.otherWorkspaceId);
      const responses = await unchanged(f, async () => [
        await theirs.get(draft.id),
        await theirs.patch(draft.id, { subject: 'Hijacked' }),
        await theirs.schedule(draft.id),
      ]);
      expect(responses.map(outcome)).toEqual(Array(3).fill('404 campaign_not_found'));
      for (const response of responses) expect(response.body).not.toContain('Not theirs');
      expect((await theirs.list('?limit=100')).body).not.toContain(draft.id);
    });
  });

  describe('key lifecycle', () => {
    async function freshKey(f: Fixture, name: string): Promise<CreatedKey> {
      return createApiKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name });
    }

    it('refuses a revoked key with 401 api_key_revoked on the very next request', async () => {
      const f = fixture();
      const key = await freshKey(f, 'to revoke');
      const api = campaignsApi(f, key.key);
      expect((await api.list()).statusCode).toBe(200);
      const revoked = await call(
        f,
        f.owner.token,
        'DELETE',
        `/api/v1/workspaces/${f.workspaceId}/api-keys/${key.id}`,
      );
      expect(revoked.statusCode).toBe(200);

      const responses = [await api.list(), await api.create({ name: 'After revoke' })];

      for (const response of responses) {
        expect(outcome(response)).toBe('401 api_key_revoked');
        expect(response.headers['www-authenticate']).toBe(`${REALM}, error="invalid_token"`);
        expect(problemOf(response).resolution).toContain('/api-keys');
        // The prefix the key list shows, so the owner can tell which key it is: it is no secret.
        expect(problemOf(response).detail).toBe(`The workspace API key ${key.prefix}… was revoked.`);
      }
    });

    it('refuses a key 90 days after its creation with 401 api_key_expired, and a revoked expired key as revoked', async () => {
      const f = fixture();
      const key = await freshKey(f, 'short-lived');
      const api = campaignsApi(f, key.key);
      f.clock.advance(BRAND_KEY_LIFETIME_MS - 1);
      try {
        expect((await api.list()).statusCode).toBe(200);
        f.clock.advance(1);
        const expired = await api.list();
        expect(outcome(expired)).toBe('401 api_key_expired');
        expect(problemOf(expired).detail).toBe(
          `The workspace API key ${key.prefix}… expired at ${String(key.expires_at)}.`,
        );
        await f.store.keys.revoke('api', f.workspaceId, key.id, new Date(f.clock.now()).toISOString());
        expect(outcome(await api.list())).toBe('401 api_key_revoked');
      } finally {
        f.clock.advance(-BRAND_KEY_LIFETIME_MS);
      }
    });

    it.each([
      ['an unknown well-formed key', () => WORKSPACE_API_KEY.generate()],
      ['a key with a bad checksum', (key: string) => `${key.slice(0, -6)}000000`],
      ['a truncated key', (key: string) => key.slice(0, -1)],
      ['a key with one more character', (key: string) => `${key}0`],
    ])('refuses %s with 401 api_key_invalid', async (_label, make) => {
      const f = fixture();
      const response = await campaignsApi(f, make(f.apiKey)).list();
      expect(outcome(response)).toBe('401 api_key_invalid');
      expect(response.headers['www-authenticate']).toBe(`${REALM}, error="invalid_token"`);
    });
  });

  describe('what a key may call', () => {
    it('answers 403 api_key_not_allowed to a workspace API key on every route but the campaign routes, and changes nothing', async () => {
      const f = fixture();
      const ws = `/api/v1/workspaces/${f.workspaceId}`;
      const routes: RouteCall[] = [
        { method: 'GET', url: `${ws}/brand` },
        { method: 'PUT', url: `${ws}/brand`, body: { name: 'Taken over' } },
        { method: 'GET', url: `${ws}/brand-keys` },
        { method: 'POST', url: `${ws}/brand-keys`, body: { name: 'escalated' } },
        { method: 'DELETE', url: `${ws}/brand-keys/bk_x` },
        { method: 'GET', url: `${ws}/api-keys` },
        { method: 'POST', url: `${ws}/api-keys`, body: { name: 'self-replicating' } },
        { method: 'DELETE', url: `${ws}/api-keys/${f.apiKeyId}` },
        { method: 'GET', url: `${ws}/members` },
        { method: 'POST', url: `${ws}/members`, body: { email: 'evil@example.com', role: 'owner' } },
        { method: 'DELETE', url: `${ws}/members/${f.owner.user.id}` },
        { method: 'GET', url: `${ws}/audit-log` },
        { method: 'GET', url: '/api/v1/workspaces' },
        { method: 'POST', url: '/api/v1/workspaces', body: { name: 'Key-made workspace' } },
        { method: 'GET', url: '/api/v1/tokens' },
        { method: 'POST', url: '/api/v1/tokens', body: { name: 'escalated', expires_in_days: 90 } },
        { method: 'DELETE', url: '/api/v1/tokens/pat_x' },
      ];
      const before = await snapshotTables(f.database.config);
      const outcomes: Record<string, string> = {};
      for (const route of routes) {
        const response = await call(f, f.apiKey, route.method, route.url, { body: route.body });
        outcomes[`${route.method} ${route.url}`] = outcome(response);
        expect(response.body).not.toContain('Acme');
      }
      expect(outcomes).toEqual(
        Object.fromEntries(routes.map((r) => [`${r.method} ${r.url}`, '403 api_key_not_allowed'])),
      );
      expect(await snapshotTables(f.database.config)).toEqual(before);
    });

    it('answers 403 brand_key_not_allowed to a brand read key on every campaign route, and changes nothing', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      const responses = await everyRoute(f, f.brandKey, f.workspaceId, draft.id);
      expect(responses.map(outcome)).toEqual(Array(5).fill('403 brand_key_not_allowed'));
    });

    it('answers 401 malformed_key, naming the kind of key, to a workspace API key on the read operation', async () => {
      const f = fixture();
      const response = await call(f, f.apiKey, 'POST', '/functions/v1/brand-agent', {
        body: { action: 'context', workspace_id: f.workspaceId },
      });
      expect(outcome(response)).toBe('401 malformed_key');
      expect(problemOf(response).detail).toContain('workspace API key (wsk_');
      expect(response.body).not.toContain(f.apiKey.slice(4));
      expect(response.body).not.toContain('Acme');
    });
  });

  describe('secrets', () => {
    it('stores no API key, session or token in plaintext: no table holds any of them', async () => {
      const f = fixture();
      const created: string[] = [];
      for (const name of ['scan 1', 'scan 2']) {
        const response = await call(
          f,
          f.owner.token,
          'POST',
          `/api/v1/workspaces/${f.workspaceId}/api-keys`,
          {
            body: { name },
          },
        );
        created.push(response.json<{ key: string }>().key);
      }
      const pat = await call(f, f.owner.token, 'POST', '/api/v1/tokens', {
        body: { name: 'scan', expires_in_days: 7 },
      });
      for (const key of created)
        expect((await campaignsApi(f, key).create({ name: `by ${key.slice(0, 8)}` })).statusCode).toBe(201);

      const dump = JSON.stringify(await snapshotTables(f.database.config));

      const secrets = [
        ...created,
        f.apiKey,
        f.otherApiKey,
        f.brandKey,
        f.owner.token,
        f.member.token,
        pat.json<{ token: string }>().token,
      ];
      expect(dump).toContain(hashKey(f.apiKey));
      for (const secret of secrets) {
        expect(dump).not.toContain(secret);
        expect(dump).not.toContain(secret.slice(4, 34));
      }
    });

    it('writes no key or Authorization header to the logs, whatever the request', async () => {
      const f = fixture();
      const unknown = WORKSPACE_API_KEY.generate();
      const malformed = mistype(f.apiKey);
      await campaignsApi(f, f.apiKey).list();
      await campaignsApi(f, unknown).list();
      await campaignsApi(f, malformed).create({ name: 'x' });
      await call(f, f.apiKey, 'GET', `${campaignsUrl(f.workspaceId)}?cursor=${f.apiKey}`);
      await call(f, f.apiKey, 'GET', `/api/v1/workspaces/${f.apiKey}/campaigns`);
      await call(f, f.apiKey, 'GET', `/api/v1/workspaces/${f.workspaceId}/members`);
      await call(f, undefined, 'GET', `/nowhere/${f.apiKey}`);
      const text = f.logs.join('');
      expect(text).toContain('"status":200');
      expect(text).toContain('wsk_[REDACTED]');
      for (const secret of [f.apiKey, unknown, malformed, f.apiKey.slice(4, 34), unknown.slice(4, 34)])
        expect(text).not.toContain(secret);
      expect(text.toLowerCase()).not.toContain('authorization');
    });

    it('never echoes a key in an error body, even where an id or a field goes', async () => {
      const f = fixture();
      const secret = f.apiKey.slice(4, 34);
      const responses = [
        await call(f, f.apiKey, 'GET', `/api/v1/workspaces/${f.apiKey}/campaigns`),
        await call(f, f.apiKey, 'GET', campaignUrl(f.workspaceId, f.apiKey)),
        await call(f, f.apiKey, 'GET', `${campaignsUrl(f.workspaceId)}?cursor=${f.apiKey}`),
        await campaignsApi(f, f.apiKey).create({ name: f.apiKey.repeat(10) }),
        await campaignsApi(f, f.apiKey).create({ name: 'x', subject: `${f.apiKey}\n` }),
        await campaignsApi(f, f.otherApiKey).get(f.apiKey),
      ];
      for (const response of responses) {
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.body).not.toContain(secret);
      }
    });
  });

  describe('audit', () => {
    it("records an API key's campaign changes with the actor {type: 'api_key', id}, and no secret anywhere in the log", async () => {
      const f = fixture();
      const api = campaignsApi(f, f.apiKey);
      const { id } = (await api.create({ name: 'Key-made' })).json<Campaign>();
      await api.patch(id, { subject: 'By the pipeline' }, '"1"');
      await api.schedule(id, '"2"');

      const events = await auditLog(f);

      const actor = { type: 'api_key', id: f.apiKeyId };
      expect(events.filter((event) => event.target.id === id)).toEqual([
        expect.objectContaining({ action: 'campaign.scheduled', actor }),
        expect.objectContaining({
          action: 'campaign.updated',
          actor,
          details: expect.objectContaining({ fields: 'subject' }) as unknown,
        }),
        expect.objectContaining({ action: 'campaign.created', actor, details: { name: 'Key-made' } }),
      ]);
      const keyEvents = events.filter((event) => event.target.type === 'api_key');
      expect(keyEvents.map((event) => event.action)).toContain('api_key.created');
      const log = JSON.stringify(events);
      for (const key of [f.apiKey, f.otherApiKey, f.brandKey]) {
        expect(log).not.toContain(key.slice(4, 34));
        expect(log).not.toContain(hashKey(key));
      }
      const rows = (await snapshotTables(f.database.config)).audit_events as {
        target_id: string;
        actor_type: string;
        actor_id: string | null;
        actor_email: string | null;
      }[];
      const byKey = rows.filter((row) => row.target_id === id);
      expect(byKey.map((row) => [row.actor_type, row.actor_id, row.actor_email])).toEqual(
        Array(3).fill(['api_key', f.apiKeyId, null]),
      );
    });

    it('records the creation and the revocation of an API key once, by the user who did it', async () => {
      const f = fixture();
      const base = `/api/v1/workspaces/${f.workspaceId}/api-keys`;
      const created = (
        await call(f, f.admin.token, 'POST', base, { body: { name: 'audited' } })
      ).json<CreatedKey>();
      await call(f, f.owner.token, 'DELETE', `${base}/${created.id}`);
      await call(f, f.owner.token, 'DELETE', `${base}/${created.id}`);

      const events = (await auditLog(f)).filter((event) => event.target.id === created.id);

      expect(events).toEqual([
        expect.objectContaining({
          action: 'api_key.revoked',
          actor: { type: 'user', id: f.owner.user.id, email: f.owner.user.email },
          target: { type: 'api_key', id: created.id },
        }),
        expect.objectContaining({
          action: 'api_key.created',
          actor: { type: 'user', id: f.admin.user.id, email: f.admin.user.email },
          details: expect.objectContaining({ name: 'audited', prefix: created.prefix }) as unknown,
        }),
      ]);
      expect(JSON.stringify(events)).not.toContain(created.key.slice(4, 34));
    });
  });

  describe('GET …/campaigns/{campaign_id}/check', () => {
    it("answers 403 to another workspace's API key and owner, without a word of the draft, and changes nothing", async () => {
      const f = fixture();
      const draft = await newDraft(f, { subject: 'Confidential launch', body_text: 'cheap cheap' });
      const url = `${campaignUrl(f.workspaceId, draft.id)}/check`;
      const responses = await unchanged(f, () =>
        Promise.all([f.otherApiKey, f.otherOwner.token].map((credential) => call(f, credential, 'GET', url))),
      );
      expect(responses.map(outcome)).toEqual(['403 workspace_forbidden', '403 workspace_forbidden']);
      for (const response of responses) expect(response.body).not.toContain('Confidential');
    });

    it('answers 403 brand_key_not_allowed to a brand read key: the check of a draft is a campaign read', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      const response = await call(f, f.brandKey, 'GET', `${campaignUrl(f.workspaceId, draft.id)}/check`);
      expect(outcome(response)).toBe('403 brand_key_not_allowed');
    });
  });
});
