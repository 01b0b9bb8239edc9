import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_SECRET_PREFIX } from '../../../../core/secret-keys.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { consoleAccount, consoleSessionApi } from '#test/support/fixtures/auth.js';
import { keysUrl } from '#test/support/fixtures/keys.js';
import { call, callEach, type Fixture, outcome, unchanged, useFixture } from '#test/support/http-fixture.js';
import {
  type CreatedWebhook,
  deliveriesOf,
  newWebhook,
  sendTest,
  webhookRoutes,
  webhooksApi,
  webhooksUrl,
  type WebhookSecret,
} from '#test/support/fixtures/webhooks.js';

/** The target of every test: an endpoint of the fixture's workspace with a delivery, and its secret. */
interface Target {
  webhook: CreatedWebhook;
  deliveryId: string;
}

async function target(f: Fixture, description = 'Confidential relay'): Promise<Target> {
  const webhook = await newWebhook(f, { description, url: 'https://hooks.example.com/acme-private' });
  return { webhook, deliveryId: (await sendTest(f, webhook.id)).delivery_id };
}

/** Calls every webhook route of `workspaceId` on `t` with `credential`; checks that no table changed. */
async function everyRoute(
  f: Fixture,
  credential: string | undefined,
  workspaceId: string,
  t: Target,
): Promise<LightMyRequestResponse[]> {
  return unchanged(f, () => callEach(f, credential, webhookRoutes(workspaceId, t.webhook.id, t.deliveryId)));
}

/** The answers leak nothing of the endpoint: not its secret, its URL or its description. */
function expectNothingLeaked(responses: LightMyRequestResponse[], t: Target): void {
  for (const response of responses) {
    expect(response.body).not.toContain(WEBHOOK_SECRET_PREFIX);
    expect(response.body).not.toContain(t.webhook.secret.slice(6, 30));
    expect(response.body).not.toContain('acme-private');
    expect(response.body).not.toContain(t.webhook.description ?? '');
  }
}

describeEachBackend('Webhooks API: security', (backend) => {
  const fixture = useFixture(backend);

  describe('roles', () => {
    it('answers 403 insufficient_role to a member on every webhook route, reads included, and changes nothing', async () => {
      const f = fixture();
      const t = await target(f);
      const responses = await everyRoute(f, f.member.token, f.workspaceId, t);
      expect(responses.map(outcome)).toEqual(Array(11).fill('403 insufficient_role'));
      expectNothingLeaked(responses, t);
    });

    it('lets an admin do what an owner does', async () => {
      const f = fixture();
      const t = await target(f);
      const api = webhooksApi(f, f.admin.token);
      expect((await api.list()).statusCode).toBe(200);
      expect((await api.secret(t.webhook.id)).json<WebhookSecret>().secret).toBe(t.webhook.secret);
      expect((await api.patch(t.webhook.id, { description: 'By the admin' })).statusCode).toBe(200);
      expect((await api.retry(t.webhook.id, t.deliveryId)).statusCode).toBe(202);
      expect((await api.remove(t.webhook.id)).statusCode).toBe(204);
    });
  });

  describe('workspace boundaries', () => {
    it("answers 403 workspace_forbidden to another workspace's owner on every route of this workspace's endpoint, and changes nothing", async () => {
      const f = fixture();
      const t = await target(f);
      const responses = await everyRoute(f, f.otherOwner.token, f.workspaceId, t);
      expect(responses.map(outcome)).toEqual(Array(11).fill('403 workspace_forbidden'));
      expectNothingLeaked(responses, t);
      const after = await webhooksApi(f, f.owner.token).get(t.webhook.id);
      expect(after.json()).toMatchObject({
        url: t.webhook.url,
        enabled: true,
        updated_at: t.webhook.updated_at,
      });
      expect((await webhooksApi(f, f.owner.token).secret(t.webhook.id)).json<WebhookSecret>().secret).toBe(
        t.webhook.secret,
      );
    });

    it("answers 404 webhook_not_found to another workspace's owner who names this workspace's endpoint under their own workspace", async () => {
      const f = fixture();
      const t = await target(f);
      const routes = webhookRoutes(f.otherWorkspaceId, t.webhook.id, t.deliveryId).filter((route) =>
        route.url.includes(t.webhook.id),
      );
      expect(routes).toHaveLength(9);
      const before = await snapshotTables(f.database.config);
      const responses: LightMyRequestResponse[] = [];
      for (const route of routes)
        responses.push(
          await call(f, f.otherOwner.token, route.method, route.url, {
            body: 'body' in route ? route.body : undefined,
          }),
        );
      expect(await snapshotTables(f.database.config)).toEqual(before);
      expect(responses.map(outcome)).toEqual(Array(9).fill('404 webhook_not_found'));
      expectNothingLeaked(responses, t);
    });

    it("answers 404 delivery_not_found to another workspace's owner who names this workspace's delivery under their own endpoint", async () => {
      const f = fixture();
      const t = await target(f);
      const theirs = await newWebhook(f, {}, f.otherOwner.token, f.otherWorkspaceId);
      const api = webhooksApi(f, f.otherOwner.token, f.otherWorkspaceId);
      const before = await snapshotTables(f.database.config);
      const responses = [
        await api.delivery(theirs.id, t.deliveryId),
        await api.retry(theirs.id, t.deliveryId),
      ];
      expect(await snapshotTables(f.database.config)).toEqual(before);
      expect(responses.map(outcome)).toEqual(['404 delivery_not_found', '404 delivery_not_found']);
      for (const response of responses) expect(response.body).not.toContain('webhook.test');
    });

    it("never queues one workspace's events for another workspace's endpoints", async () => {
      const f = fixture();
      const theirs = await newWebhook(f, { events: ['*'] }, f.otherOwner.token, f.otherWorkspaceId);
      const ours = await newWebhook(f, { events: ['*'] });
      const created = await call(f, f.owner.token, 'POST', keysUrl(f, 'brand-keys'), {
        body: { name: 'ours' },
      });
      expect(created.statusCode).toBe(201);
      expect((await deliveriesOf(f, ours.id)).map((delivery) => delivery.event_type)).toEqual([
        'brand_key.created',
      ]);
      expect(await deliveriesOf(f, theirs.id, f.otherWorkspaceId, f.otherOwner.token)).toEqual([]);
      expect((await webhooksApi(f, f.otherOwner.token, f.otherWorkspaceId).list()).body).not.toContain(
        ours.id,
      );
    });
  });

  describe('credentials', () => {
    it('answers 401 missing_token without credentials on every webhook route', async () => {
      const f = fixture();
      const t = await target(f);
      const responses = await everyRoute(f, undefined, f.workspaceId, t);
      expect(responses.map(outcome)).toEqual(Array(11).fill('401 missing_token'));
    });

    it('refuses brand read keys and workspace API keys, of this workspace or another, on every webhook route', async () => {
      const f = fixture();
      const t = await target(f);
      const expected: [string, string][] = [
        [f.brandKey, '403 brand_key_not_allowed'],
        [f.otherBrandKey, '403 brand_key_not_allowed'],
        [f.apiKey, '403 api_key_not_allowed'],
        [f.otherApiKey, '403 api_key_not_allowed'],
      ];
      for (const [key, refusal] of expected) {
        const responses = await everyRoute(f, key, f.workspaceId, t);
        expect(responses.map(outcome), refusal).toEqual(Array(11).fill(refusal));
        expectNothingLeaked(responses, t);
        for (const response of responses) expect(response.body).not.toContain(key.slice(4, 34));
      }
    });
  });

  describe('the console session', () => {
    const withConsole = useFixture(backend, { extend: consoleAccount });
    const { session } = consoleSessionApi(withConsole);

    it('refuses a webhook change made with the session cookie but no CSRF token, and takes it with one', async () => {
      const f = withConsole();
      const { cookie, csrf } = await session();
      const body = JSON.stringify({ url: 'https://hooks.example.com/console', events: ['*'] });
      const send = (headers: Record<string, string>) =>
        f.app.inject({
          method: 'POST',
          url: webhooksUrl(f.workspaceId),
          headers: { cookie, 'content-type': 'application/json', ...headers },
          payload: body,
        });
      const before = await snapshotTables(f.database.config);
      expect(outcome(await send({}))).toBe('403 csrf_failed');
      expect(outcome(await send({ 'x-csrf-token': 'forged' }))).toBe('403 csrf_failed');
      expect(await snapshotTables(f.database.config)).toEqual(before);
      expect((await send({ 'x-csrf-token': csrf })).statusCode).toBe(201);
    });
  });

  describe('secrets', () => {
    it('stores no signing secret in plaintext: neither the current one nor the one it was rotated from', async () => {
      const f = fixture();
      const t = await target(f);
      const rotated = (await webhooksApi(f, f.owner.token).rotate(t.webhook.id)).json<WebhookSecret>();

      const tables = await snapshotTables(f.database.config);

      const rows = tables.webhooks as { id: string; secret: string; previous_secret: string | null }[];
      const row = rows.find((candidate) => candidate.id === t.webhook.id);
      expect(row?.secret).toEqual(expect.any(String));
      expect(row?.previous_secret).toEqual(expect.any(String));
      const dump = JSON.stringify(tables);
      expect(dump).not.toContain(WEBHOOK_SECRET_PREFIX);
      for (const secret of [t.webhook.secret, rotated.secret]) {
        const body = secret.slice(WEBHOOK_SECRET_PREFIX.length);
        expect(dump).not.toContain(body);
        expect(dump).not.toContain(body.slice(0, 24));
        expect(dump).not.toContain(Buffer.from(body, 'base64').toString('hex'));
      }
      // Sealed afresh each time: the same secret is never stored twice in the same form.
      expect(row?.secret).not.toBe(row?.previous_secret);
    });

    it('writes no signing secret to the logs, whatever was called', async () => {
      const f = fixture();
      const t = await target(f);
      const api = webhooksApi(f, f.owner.token);
      const revealed = (await api.secret(t.webhook.id)).json<WebhookSecret>();
      const rotated = (await api.rotate(t.webhook.id)).json<WebhookSecret>();
      await api.get(t.webhook.id);
      await api.list();
      await call(f, f.owner.token, 'GET', `${webhooksUrl(f.workspaceId)}/${rotated.secret}`);
      await call(f, f.owner.token, 'GET', `${webhooksUrl(f.workspaceId)}?secret=${rotated.secret}`);

      const text = f.logs.join('');

      expect(text).toContain('"status":200');
      for (const secret of [t.webhook.secret, revealed.secret, rotated.secret]) {
        expect(text).not.toContain(secret.slice(WEBHOOK_SECRET_PREFIX.length, 30));
      }
      // Every whsec_ in a log line is a redacted one.
      expect(text.match(/whsec_(?!\[REDACTED\])/g)).toBeNull();
    });

    it('never answers a signing secret in an error body, even where an id, a field or a query goes', async () => {
      const f = fixture();
      const t = await target(f);
      const { secret } = t.webhook;
      const api = webhooksApi(f, f.owner.token);
      const responses = [
        await api.get(secret),
        await api.patch(t.webhook.id, { [secret]: true }),
        await api.patch(t.webhook.id, { events: [secret] }),
        await api.create({ url: `https://hooks.example.com/${secret}`, events: [secret] }),
        await api.create({ url: secret, events: ['*'] }),
        await api.deliveries(t.webhook.id, `?cursor=${encodeURIComponent(secret)}`),
        await api.delivery(t.webhook.id, secret),
        await webhooksApi(f, f.member.token).secret(t.webhook.id),
        await webhooksApi(f, f.otherOwner.token).secret(t.webhook.id),
      ];
      for (const response of responses) {
        expect(response.statusCode).toBeGreaterThanOrEqual(400);
        expect(response.statusCode).toBeLessThan(500);
        // Echoed input is masked: a whsec_ in an error is only ever a redacted one.
        expect(response.body).not.toMatch(/whsec_(?!\[REDACTED\])/);
        expect(response.body).not.toContain(secret.slice(WEBHOOK_SECRET_PREFIX.length, 30));
      }
    });
  });
});
