import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_LIMITS } from '../../../../contract/webhooks.js';
import { describeEachBackend } from '#test/support/databases.js';
import {
  call,
  expectNonJsonRefused,
  outcome,
  problemOf,
  refused,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';
import {
  type CreatedWebhook,
  leaseDelivery,
  newWebhook,
  PRIVATE_URLS_ALLOWED,
  PUBLIC_URL,
  sendTest,
  webhookRoutes,
  webhooksApi,
  webhooksUrl,
  webhookUrl,
} from '#test/support/fixtures/webhooks.js';
import { mistype } from '#test/support/mistype.js';

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** A URL of exactly `length` characters on the public host. */
function urlOfLength(length: number): string {
  return `${PUBLIC_URL}/${'p'.repeat(length - PUBLIC_URL.length - 1)}`;
}

/** URLs the address rules refuse when private targets are not allowed (the default), by why. */
const REFUSED_URLS: { case: string; url: string; message: RegExp }[] = [
  {
    case: 'http:// to loopback',
    url: 'http://127.0.0.1:8080/hooks',
    message: /^must start with https:\/\/$/,
  },
  { case: 'plain http://', url: 'http://hooks.example.com/in', message: /^must start with https:\/\/$/ },
  { case: 'a private address', url: 'https://10.0.0.1/hooks', message: /10\.0\.0\.1 is loopback, private/ },
  { case: 'localhost', url: 'https://localhost/hooks', message: /localhost is loopback, private/ },
  { case: 'IPv6 loopback', url: 'https://[::1]/hooks', message: /::1 is loopback, private/ },
  {
    case: 'the cloud metadata address',
    url: 'https://169.254.169.254/latest/meta-data/',
    message: /169\.254\.169\.254 is loopback, private/,
  },
  // IPv6 forms that carry an IPv4 address: IPv4-compatible (::/96), mapped, NAT64, 6to4.
  {
    case: 'loopback in IPv4-compatible IPv6',
    url: 'https://[::127.0.0.1]/hooks',
    message: /::7f00:1 is loopback, private/,
  },
  {
    case: 'loopback in IPv4-compatible IPv6, hexadecimal',
    url: 'https://[::7f00:1]/',
    message: /::7f00:1 is/,
  },
  {
    case: 'cloud metadata in IPv4-compatible IPv6',
    url: 'https://[::a9fe:a9fe]/latest/meta-data/',
    message: /::a9fe:a9fe is loopback, private/,
  },
  { case: 'a private address in IPv4-compatible IPv6', url: 'https://[::10.0.0.1]/', message: /::a00:1 is/ },
  {
    case: 'a home network in IPv4-compatible IPv6',
    url: 'https://[::192.168.1.1]/',
    message: /::c0a8:101 is/,
  },
  {
    case: 'cloud metadata in IPv4-mapped IPv6',
    url: 'https://[::ffff:169.254.169.254]/',
    message: /::ffff:a9fe:a9fe is/,
  },
  {
    case: 'cloud metadata through NAT64',
    url: 'https://[64:ff9b::a9fe:a9fe]/',
    message: /64:ff9b::a9fe:a9fe is/,
  },
  { case: 'loopback through 6to4', url: 'https://[2002:7f00:1::1]/', message: /2002:7f00:1::1 is/ },
  { case: 'an ftp:// URL', url: 'ftp://x', message: /^must start with https:\/\/$/ },
  { case: 'text that is no URL', url: 'not-a-url', message: /^must be an absolute URL/ },
  {
    case: 'a user name and password',
    url: 'https://user:pass@hooks.example.com/in',
    message: /^must not contain a user name or password$/,
  },
];

/** Invalid create bodies, each with exactly the fields the 400 must name. */
const INVALID_CREATE: { case: string; body: unknown; fields: string[] }[] = [
  { case: 'no url', body: { events: ['*'] }, fields: ['url'] },
  { case: 'an empty url', body: { url: '', events: ['*'] }, fields: ['url'] },
  {
    case: `a url over ${WEBHOOK_LIMITS.url} characters`,
    body: { url: urlOfLength(WEBHOOK_LIMITS.url + 1), events: ['*'] },
    fields: ['url'],
  },
  { case: 'a url that is a number', body: { url: 443, events: ['*'] }, fields: ['url'] },
  { case: 'no events', body: { url: PUBLIC_URL }, fields: ['events'] },
  { case: 'an empty events list', body: { url: PUBLIC_URL, events: [] }, fields: ['events'] },
  { case: 'an unknown event type', body: { url: PUBLIC_URL, events: ['brand.deleted'] }, fields: ['events'] },
  {
    case: 'a known and an unknown event type',
    body: { url: PUBLIC_URL, events: ['brand.updated', 'campaign.sent'] },
    fields: ['events'],
  },
  {
    case: 'an event named twice',
    body: { url: PUBLIC_URL, events: ['member.added', 'member.added'] },
    fields: ['events'],
  },
  {
    case: '"*" with another event',
    body: { url: PUBLIC_URL, events: ['*', 'brand.updated'] },
    fields: ['events'],
  },
  { case: '"*" twice', body: { url: PUBLIC_URL, events: ['*', '*'] }, fields: ['events'] },
  { case: 'events as a string', body: { url: PUBLIC_URL, events: '*' }, fields: ['events'] },
  {
    case: `a description over ${WEBHOOK_LIMITS.description} characters`,
    body: { url: PUBLIC_URL, events: ['*'], description: 'd'.repeat(WEBHOOK_LIMITS.description + 1) },
    fields: ['description'],
  },
  {
    case: 'a null description',
    body: { url: PUBLIC_URL, events: ['*'], description: null },
    fields: ['description'],
  },
  {
    case: 'an unknown field secret',
    body: { url: PUBLIC_URL, events: ['*'], secret: 'whsec_mine' },
    fields: ['secret'],
  },
  {
    case: 'server-set fields',
    body: { url: PUBLIC_URL, events: ['*'], enabled: false, id: 'wh_mine' },
    fields: ['enabled', 'id'],
  },
  { case: 'a body that is an array', body: [{ url: PUBLIC_URL, events: ['*'] }], fields: [''] },
  { case: 'an empty object', body: {}, fields: ['url', 'events'] },
];

const INVALID_PATCH: { case: string; body: unknown; fields: string[] }[] = [
  { case: 'an empty body', body: {}, fields: [''] },
  { case: 'enabled as a string', body: { enabled: 'false' }, fields: ['enabled'] },
  { case: 'a null url', body: { url: null }, fields: ['url'] },
  { case: 'null events', body: { events: null }, fields: ['events'] },
  { case: 'an empty events list', body: { events: [] }, fields: ['events'] },
  { case: 'an unknown event type', body: { events: ['webhook.deleted'] }, fields: ['events'] },
  { case: '"*" with another event', body: { events: ['campaign.created', '*'] }, fields: ['events'] },
  {
    case: `a description over ${WEBHOOK_LIMITS.description} characters`,
    body: { description: 'd'.repeat(WEBHOOK_LIMITS.description + 1) },
    fields: ['description'],
  },
  { case: 'an unknown field secret', body: { secret: 'whsec_mine' }, fields: ['secret'] },
  {
    case: 'only server-set fields',
    body: { disabled_reason: null, failing_since: null },
    fields: ['disabled_reason', 'failing_since'],
  },
  { case: 'a body that is a string', body: 'enabled', fields: [''] },
];

function expectFields(response: LightMyRequestResponse, fields: string[]): void {
  expect(outcome(response)).toBe('400 invalid_request');
  const problem = problemOf(response);
  expect((problem.errors ?? []).map((issue) => issue.field).sort()).toEqual([...fields].sort());
  for (const issue of problem.errors ?? []) expect(issue.message).not.toBe('');
}

describeEachBackend('Webhooks API: errors', (backend) => {
  // The suite's tests make endpoints in one workspace, past the default endpoint limit.
  const fixture = useFixture(backend, { app: { webhooks: { endpointLimit: 10_000 } } });

  describe('address rules', () => {
    for (const refusal of REFUSED_URLS) {
      it(`refuses an endpoint with ${refusal.case} (${refusal.url}): 400 naming url, and creates nothing`, async () => {
        const f = fixture();
        const response = await unchanged(f, () =>
          webhooksApi(f, f.owner.token).create({ url: refusal.url, events: ['*'] }),
        );
        expectFields(response, ['url']);
        expect(problemOf(response).errors?.[0]?.message).toMatch(refusal.message);
      });
    }

    it('refuses the same URLs as a change of an endpoint, and keeps the URL it had', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const webhook = await newWebhook(f);
      for (const refusal of REFUSED_URLS) {
        const response = await unchanged(f, () => api.patch(webhook.id, { url: refusal.url }));
        expectFields(response, ['url']);
      }
      expect((await api.get(webhook.id)).json()).toMatchObject({ url: PUBLIC_URL });
    });
  });

  describe('invalid input', () => {
    for (const invalid of INVALID_CREATE) {
      it(`refuses to create an endpoint with ${invalid.case}: 400 naming ${invalid.fields.map((field) => `"${field}"`).join(', ')}, and changes nothing`, async () => {
        const f = fixture();
        const response = await unchanged(f, () => webhooksApi(f, f.owner.token).create(invalid.body));
        expectFields(response, invalid.fields);
      });
    }

    for (const invalid of INVALID_PATCH) {
      it(`refuses a change with ${invalid.case}: 400 naming ${invalid.fields.map((field) => `"${field}"`).join(', ')}, and changes nothing`, async () => {
        const f = fixture();
        const webhook = await newWebhook(f);
        const response = await unchanged(f, () =>
          webhooksApi(f, f.owner.token).patch(webhook.id, invalid.body),
        );
        expectFields(response, invalid.fields);
      });
    }

    it('says a missing url and missing events are required', async () => {
      const f = fixture();
      const response = await unchanged(f, () => webhooksApi(f, f.owner.token).create({}));
      expect(problemOf(response).errors).toEqual([
        { field: 'url', message: 'is required' },
        { field: 'events', message: 'is required' },
      ]);
    });

    it('names the unknown event types and lists the known ones', async () => {
      const f = fixture();
      const response = await webhooksApi(f, f.owner.token).create({
        url: PUBLIC_URL,
        events: ['campaign.created', 'campaign.sent'],
      });
      const message = problemOf(response).errors?.[0]?.message ?? '';
      expect(message).toContain('"campaign.sent"');
      expect(message).toContain('member.removed');
    });

    it('accepts a URL and a description at their limits, and every event type at once', async () => {
      const f = fixture();
      const url = urlOfLength(WEBHOOK_LIMITS.url);
      const description = 'd'.repeat(WEBHOOK_LIMITS.description);
      const created = await newWebhook(f, { url, description, events: [...WEBHOOK_EVENT_TYPES] });
      expect(created.url).toHaveLength(WEBHOOK_LIMITS.url);
      expect(created.description).toHaveLength(WEBHOOK_LIMITS.description);
      expect(created.events).toEqual([...WEBHOOK_EVENT_TYPES]);
    });

    it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON', async () => {
      const f = fixture();
      const webhook = await newWebhook(f);
      await expectNonJsonRefused(f, f.owner.token, 'POST', webhooksUrl(f.workspaceId));
      await expectNonJsonRefused(f, f.owner.token, 'PATCH', webhookUrl(f.workspaceId, webhook.id));
    });

    it('answers 400 to a create or a change without a body, and changes nothing', async () => {
      const f = fixture();
      const webhook = await newWebhook(f);
      const responses = await unchanged(f, async () => [
        await call(f, f.owner.token, 'POST', webhooksUrl(f.workspaceId)),
        await call(f, f.owner.token, 'PATCH', webhookUrl(f.workspaceId, webhook.id)),
        await call(f, f.owner.token, 'POST', webhooksUrl(f.workspaceId), {
          rawBody: '',
          headers: { 'content-type': 'application/json' },
        }),
      ]);
      for (const response of responses) {
        expect(response.statusCode).toBe(400);
        expect(['invalid_request', 'invalid_json']).toContain(problemOf(response).code);
      }
    });

    it('answers 413 payload_too_large to a body over 1 MiB, and changes nothing', async () => {
      const f = fixture();
      const rawBody = JSON.stringify({
        url: PUBLIC_URL,
        events: ['*'],
        description: 'x'.repeat(1024 * 1024),
      });
      const response = await unchanged(f, () => webhooksApi(f, f.owner.token).create(undefined, { rawBody }));
      expect(outcome(response)).toBe('413 payload_too_large');
    });

    it.each([
      ['not base64 JSON', 'nope'],
      ['an empty JSON array', cursorOf([])],
      ['numbers', cursorOf([1, 2])],
      ['an object', cursorOf({ created_at: '2026-11-20T10:00:00.000Z', id: 'dlv_x' })],
      ['a time that is not a time', cursorOf(['not a time', 'dlv_x'])],
      ['an over-long cursor', 'a'.repeat(513)],
    ])('answers 400 invalid_request naming cursor to a delivery cursor of %s', async (_label, cursor) => {
      const f = fixture();
      const webhook = await newWebhook(f);
      const response = await webhooksApi(f, f.owner.token).deliveries(
        webhook.id,
        `?cursor=${encodeURIComponent(cursor)}`,
      );
      expectFields(response, ['cursor']);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['status=delivered', 'status'],
      ['sort=oldest', 'sort'],
    ])('answers 400 invalid_request to the delivery log with ?%s, naming %s', async (query, field) => {
      const f = fixture();
      const webhook = await newWebhook(f);
      expectFields(await webhooksApi(f, f.owner.token).deliveries(webhook.id, `?${query}`), [field]);
    });
  });

  describe('not found', () => {
    it('answers 404 webhook_not_found to a mistyped endpoint id on every endpoint route, and changes nothing', async () => {
      const f = fixture();
      const webhook = await newWebhook(f);
      const { delivery_id: deliveryId } = await sendTest(f, webhook.id);
      const mistyped = mistype(webhook.id);
      const routes = webhookRoutes(f.workspaceId, mistyped, deliveryId).filter((route) =>
        route.url.includes(mistyped),
      );
      expect(routes).toHaveLength(9);
      const outcomes = await unchanged(f, async () => {
        const answered: Record<string, string> = {};
        for (const route of routes) {
          const body = 'body' in route ? route.body : undefined;
          answered[`${route.method} ${route.url}`] = outcome(
            await call(f, f.owner.token, route.method, route.url, { body }),
          );
        }
        return answered;
      });
      expect(outcomes).toEqual(
        Object.fromEntries(routes.map((route) => [`${route.method} ${route.url}`, '404 webhook_not_found'])),
      );
    });

    it("answers 404 delivery_not_found to a mistyped delivery id, and to another endpoint's delivery", async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const webhook = await newWebhook(f);
      const other = await newWebhook(f);
      const { delivery_id: theirs } = await sendTest(f, other.id);
      const responses = await unchanged(f, async () => [
        await api.delivery(webhook.id, 'dlv_DoesNotExist'),
        await api.retry(webhook.id, 'dlv_DoesNotExist'),
        await api.delivery(webhook.id, theirs),
        await api.retry(webhook.id, theirs),
      ]);
      expect(responses.map(outcome)).toEqual(Array(4).fill('404 delivery_not_found'));
      expect(problemOf(responses[0] as LightMyRequestResponse).detail).toContain(webhook.id);
    });

    it('answers 404 workspace_not_found on a workspace that does not exist', async () => {
      const f = fixture();
      const response = await call(f, f.owner.token, 'GET', webhooksUrl('ws_DoesNotExist0000000000000'));
      expect(outcome(response)).toBe('404 workspace_not_found');
    });
  });

  describe('state', () => {
    it('answers 409 webhook_disabled to a test event for a disabled endpoint, and queues nothing', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const webhook = await newWebhook(f);
      expect((await api.patch(webhook.id, { enabled: false })).statusCode).toBe(200);

      const response = await refused(f, () => api.test(webhook.id), '409 webhook_disabled');

      expect(problemOf(response).resolution).toContain('"enabled": true');
      expect((await api.deliveries(webhook.id)).json()).toEqual({ items: [], next_cursor: null });
      expect((await api.patch(webhook.id, { enabled: true })).statusCode).toBe(200);
      expect((await api.test(webhook.id)).statusCode).toBe(202);
    });

    it('answers 409 webhook_disabled to a retry for a disabled endpoint, and leaves the delivery as it was', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const webhook = await newWebhook(f);
      const { delivery_id: deliveryId } = await sendTest(f, webhook.id);
      expect((await api.patch(webhook.id, { enabled: false })).statusCode).toBe(200);

      await refused(f, () => api.retry(webhook.id, deliveryId), '409 webhook_disabled');

      expect((await api.patch(webhook.id, { enabled: true })).statusCode).toBe(200);
      expect((await api.retry(webhook.id, deliveryId)).statusCode).toBe(202);
    });

    it('answers 409 delivery_in_progress to a retry while a worker holds the delivery, and 202 once its lease ran out', async () => {
      const f = fixture();
      const api = webhooksApi(f, f.owner.token);
      const webhook = await newWebhook(f);
      const { delivery_id: deliveryId } = await sendTest(f, webhook.id);
      await leaseDelivery(f, deliveryId, 30_000);

      await refused(f, () => api.retry(webhook.id, deliveryId), '409 delivery_in_progress');

      f.clock.advance(30_000);
      expect((await api.retry(webhook.id, deliveryId)).statusCode).toBe(202);
    });
  });

  describe('the endpoint limit (WEBHOOK_ENDPOINT_LIMIT)', () => {
    const limited = useFixture(backend, { app: { webhooks: { endpointLimit: 2 } } });

    it("answers 409 webhook_limit_reached to an endpoint past the workspace's limit, creates nothing, and takes one again once an endpoint is deleted", async () => {
      const f = limited();
      const api = webhooksApi(f, f.owner.token);
      const first = await api.create({ url: PUBLIC_URL, events: ['*'] });
      expect(first.statusCode).toBe(201);
      expect((await api.create({ url: `${PUBLIC_URL}/2`, events: ['brand.updated'] })).statusCode).toBe(201);

      const response = await refused(
        f,
        () => api.create({ url: `${PUBLIC_URL}/3`, events: ['*'] }),
        '409 webhook_limit_reached',
      );
      const problem = problemOf(response);
      expect(problem.detail).toBe(
        `Workspace ${f.workspaceId} has 2 webhook endpoints, as many as one workspace may have.`,
      );
      expect(problem.resolution).toMatch(/^Delete an endpoint you no longer use .*WEBHOOK_ENDPOINT_LIMIT/);
      expect((await api.list()).json<{ webhooks: unknown[] }>().webhooks).toHaveLength(2);

      // Each workspace has a limit of its own.
      const other = webhooksApi(f, f.otherOwner.token, f.otherWorkspaceId);
      expect((await other.create({ url: PUBLIC_URL, events: ['*'] })).statusCode).toBe(201);
      expect((await api.remove(first.json<CreatedWebhook>().id)).statusCode).toBe(204);
      expect((await api.create({ url: `${PUBLIC_URL}/3`, events: ['*'] })).statusCode).toBe(201);
    });
  });

  describe('without WEBHOOK_ALLOW_PRIVATE_URLS, and with it', () => {
    const allowing = useFixture(backend, { app: PRIVATE_URLS_ALLOWED });

    it('accepts http:// and loopback, private and link-local targets when private URLs are allowed', async () => {
      const f = allowing();
      for (const url of [
        'http://127.0.0.1:8788/hooks',
        'https://10.0.0.1/',
        'http://[::1]:9/',
        'http://localhost/',
      ]) {
        const response = await webhooksApi(f, f.owner.token).create({ url, events: ['*'] });
        expect(response.statusCode, url).toBe(201);
        expect(response.json<CreatedWebhook>().url).toBe(url);
      }
    });

    it('still refuses other schemes, credentials in the URL and text that is no URL', async () => {
      const f = allowing();
      for (const url of ['ftp://127.0.0.1/', 'http://user:pass@127.0.0.1/', 'not-a-url']) {
        const response = await unchanged(f, () =>
          webhooksApi(f, f.owner.token).create({ url, events: ['*'] }),
        );
        expectFields(response, ['url']);
      }
    });
  });

  // Last: whatever the suite sent, nothing was a server error.
  it('answered no request of this suite with a 5xx', () => {
    const f = fixture();
    const lines = f.logs
      .join('')
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.length).toBeGreaterThan(50);
    expect(lines.filter((line) => /"status":5\d\d|"level":50/.test(line))).toEqual([]);
  });
});
