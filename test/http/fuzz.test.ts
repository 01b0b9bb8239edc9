import type { HTTPMethods, LightMyRequestResponse } from 'fastify';
import { beforeAll, expect, it } from 'vitest';
import { BRAND_SECTIONS } from '../../src/core/brand-context.js';
import {
  BRAND_KEY,
  KEY_FORMATS,
  WEBHOOK_SECRET_PREFIX,
  WORKSPACE_API_KEY,
} from '../../src/core/secret-keys.js';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { generateWebhookSecret } from '../../src/services/shared/secret-box.js';
import { describeEachBackend } from '#test/support/databases.js';
import { campaignsUrl, newDraft } from '#test/support/fixtures/campaigns.js';
import { emailKeyWithSender, emailMessagesUrl, sendEmail } from '#test/support/fixtures/email.js';
import { useFixture } from '#test/support/http-fixture.js';
import { createWebhook } from '../../src/services/webhooks/webhooks.js';

/** mulberry32: a seeded PRNG, so that a failure reproduces from the printed seed. */
function prng(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const REQUESTS_PER_BACKEND = 1500;
/** The fields of POST /email/v1/messages. */
const EMAIL_FIELDS = ['from', 'to', 'cc', 'bcc', 'reply_to', 'subject', 'html', 'text', 'headers', 'tags'];
const SEED = 20_261_122;

/*
 * Generated requests against every route that takes input: bodies of any shape (deep, wide, NUL characters,
 * wrong types, secrets in values and keys, truncated JSON), odd content types, good and bad credentials, and
 * key-shaped strings in paths and queries. Whatever is sent: no 5xx, every error is problem+json with its code,
 * detail and resolution, and no secret that was sent comes back in an error or goes into a log line.
 */
describeEachBackend('generated requests', (backend) => {
  const fixture = useFixture(backend);
  let campaignId = '';
  let webhookId = '';
  let emailKey = '';
  let messageId = '';
  beforeAll(async () => {
    const f = fixture();
    campaignId = (await newDraft(f)).id;
    emailKey = (await emailKeyWithSender(f, f.workspaceId)).key;
    messageId = (await sendEmail(f, emailKey)).id;
    webhookId = (
      await createWebhook(f.deps, OPERATOR, f.workspaceId, {
        url: 'https://hooks.example.com/fuzz',
        events: ['*'],
      })
    ).id;
  });

  it(`answers ${String(REQUESTS_PER_BACKEND)} generated requests without a 5xx, every error as problem+json, no secret echoed or logged`, async () => {
    const f = fixture();
    const random = prng(SEED);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const int = (max: number) => Math.floor(random() * max);
    /** Secrets this run sent; their random parts must never come back in an error or reach the logs. */
    const sent = new Set<string>();
    const secret = (): string => {
      const value = pick([
        () => BRAND_KEY.generate(),
        () => WORKSPACE_API_KEY.generate(),
        () => KEY_FORMATS.email.generate(),
        () => emailKey,
        () => f.brandKey,
        () => f.apiKey,
        () => `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfJHtpbnQoMWU5KX0ifQ.${BRAND_KEY.generate().slice(4)}`,
        () => generateWebhookSecret(),
      ])();
      sent.add(
        value.startsWith('eyJ')
          ? (value.split('.')[2] ?? value)
          : value.startsWith(WEBHOOK_SECRET_PREFIX)
            ? value.slice(WEBHOOK_SECRET_PREFIX.length, WEBHOOK_SECRET_PREFIX.length + 30)
            : value.slice(4, 34),
      );
      return value;
    };
    const text = (): string =>
      pick([
        () => '',
        () => 'Acme',
        () => 'a\u0000b',
        () => '\u{1F600}\u202E\uFFFF',
        () => 'x'.repeat(int(20_000)),
        () => `prefix ${secret()} suffix`,
        () => `_${secret()}`,
        () => '#12',
        () => 'https://example.com/a',
        () => 'http://127.0.0.1:9/hook',
        () => 'https://[::ffff:169.254.169.254]/',
        () => 'javascript:alert(1)',
        () => '2026-13-45T99:99:99Z',
      ])();
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? int(5) : int(8);
      if (kind === 0) return text();
      if (kind === 1) return pick([0, -1, 1.5, 1e308, 2 ** 53 + 2, 90, 91]);
      if (kind === 2) return pick([true, false]);
      if (kind === 3) return null;
      if (kind === 4) return text();
      if (kind === 5) return Array.from({ length: int(5) }, () => value(depth + 1));
      return objectOf([], depth + 1);
    };
    const FIELDS = [
      'action',
      'workspace_id',
      'email',
      'password',
      'role',
      'subject',
      'preheader',
      'body_html',
      'body_text',
      'status',
      'expires_in_days',
      'url',
      'events',
      'enabled',
      'description',
      ...EMAIL_FIELDS,
      ...BRAND_SECTIONS,
      '__proto__',
      'constructor',
    ];
    function objectOf(fields: readonly string[], depth: number): Record<string, unknown> {
      const object: Record<string, unknown> = {};
      for (const field of fields) if (random() < 0.8) object[field] = random() < 0.6 ? text() : value(depth);
      for (let extra = int(3); extra > 0; extra--)
        object[random() < 0.3 ? secret() : pick(FIELDS)] = value(depth);
      return object;
    }
    const body = (fields: readonly string[]): string | undefined =>
      pick([
        () => undefined,
        () => '',
        () => JSON.stringify(objectOf(fields, 0)),
        () => JSON.stringify(objectOf(fields, 0)),
        () => JSON.stringify(objectOf(fields, 0)),
        () => JSON.stringify(value(0)),
        () => JSON.stringify(objectOf(fields, 0)).slice(0, -int(10) - 1),
        () => `${'['.repeat(50 + int(200))}${']'.repeat(int(250))}`,
        () => `{"a":${'{"a":'.repeat(60 + int(20))}1${'}'.repeat(61 + int(20))}`,
        () => '{"__proto__":{"admin":true},"name":"x"}',
        () => `{"name":"\\ud800"}`,
        () => 'action=context&workspace_id=x',
      ])();
    const workspace = () =>
      pick([f.workspaceId, f.otherWorkspaceId, 'ws_nope', secret(), 'ws_%00', '..%2F..']);
    const routes: { method: HTTPMethods; url: () => string; fields: readonly string[] }[] = [
      { method: 'POST', url: () => '/functions/v1/brand-agent', fields: ['action', 'workspace_id'] },
      { method: 'POST', url: () => '/auth/v1/token', fields: ['email', 'password'] },
      { method: 'POST', url: () => '/auth/v1/session', fields: ['email', 'password'] },
      { method: 'POST', url: () => '/api/v1/workspaces', fields: ['name'] },
      { method: 'POST', url: () => '/api/v1/tokens', fields: ['name', 'expires_in_days'] },
      { method: 'PUT', url: () => `/api/v1/workspaces/${workspace()}/brand`, fields: BRAND_SECTIONS },
      { method: 'POST', url: () => `/api/v1/workspaces/${workspace()}/brand-keys`, fields: ['name'] },
      { method: 'POST', url: () => `/api/v1/workspaces/${workspace()}/api-keys`, fields: ['name'] },
      { method: 'POST', url: () => `/api/v1/workspaces/${workspace()}/members`, fields: ['email', 'role'] },
      {
        method: 'POST',
        url: () => campaignsUrl(workspace()),
        fields: ['name', 'subject', 'preheader', 'body_html', 'body_text'],
      },
      {
        method: 'PATCH',
        url: () => `${campaignsUrl(workspace())}/${pick([campaignId, 'cmp_nope', secret()])}`,
        fields: ['name', 'subject', 'preheader', 'body_html', 'body_text', 'status'],
      },
      {
        method: 'GET',
        url: () =>
          `${campaignsUrl(workspace())}?${pick(['limit=0', 'limit=1000', 'cursor=%00', `cursor=${secret()}`, 'status=x', 'limit=2&status=draft'])}`,
        fields: [],
      },
      {
        method: 'GET',
        url: () => `/api/v1/workspaces/${workspace()}/audit-log?limit=${pick(['-1', 'x', '50', secret()])}`,
        fields: [],
      },
      {
        method: 'DELETE',
        url: () => `/api/v1/workspaces/${workspace()}/brand-keys/${pick(['bk_nope', secret()])}`,
        fields: [],
      },
      {
        method: 'POST',
        url: () => `/api/v1/workspaces/${workspace()}/webhooks`,
        fields: ['url', 'events', 'description'],
      },
      {
        method: 'PATCH',
        url: () => `/api/v1/workspaces/${workspace()}/webhooks/${pick([webhookId, 'wh_nope', secret()])}`,
        fields: ['url', 'events', 'enabled', 'description'],
      },
      {
        method: 'GET',
        url: () =>
          `/api/v1/workspaces/${workspace()}/webhooks/${pick([webhookId, 'wh_nope', secret()])}/${pick(['secret', 'deliveries', `deliveries/${pick(['dlv_nope', secret()])}`])}`,
        fields: [],
      },
      {
        method: 'GET',
        url: () =>
          `/api/v1/workspaces/${workspace()}/webhooks/${webhookId}/deliveries?${pick(['limit=0', 'limit=101', 'cursor=%00', `cursor=${secret()}`, 'status=lost', 'status=failed&limit=2'])}`,
        fields: [],
      },
      {
        method: 'POST',
        url: () =>
          `/api/v1/workspaces/${workspace()}/webhooks/${pick([webhookId, 'wh_nope', secret()])}/${pick(['rotate-secret', 'test', `deliveries/${pick(['dlv_nope', secret()])}/retry`])}`,
        fields: [],
      },
      { method: 'POST', url: () => '/email/v1/messages', fields: EMAIL_FIELDS },
      {
        method: 'GET',
        url: () =>
          `/email/v1/messages${pick(['', '?limit=0', '?limit=101', '?cursor=%00', `?cursor=${secret()}`, '?status=x', `/${pick([messageId, 'em_nope', '%00', secret()])}`])}`,
        fields: [],
      },
      {
        method: 'GET',
        url: () =>
          `${emailMessagesUrl(workspace())}${pick(['', '?status=captured&limit=2', `?cursor=${secret()}`, `/${pick([messageId, 'em_nope', secret()])}`, `/${pick([messageId, 'em_nope', secret()])}/content`])}`,
        fields: [],
      },
    ];
    const credentials = [
      undefined,
      () => f.owner.token,
      () => f.member.token,
      () => f.otherOwner.token,
      () => f.apiKey,
      () => f.brandKey,
      () => emailKey,
      () => secret(),
      () => `${f.owner.token.slice(0, -3)}abc`,
    ];
    const contentTypes = [
      'application/json',
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'text/plain',
      'application/x-www-form-urlencoded',
      'application/json; charset=utf-16',
      undefined,
    ];

    const failures: string[] = [];
    for (let index = 0; index < REQUESTS_PER_BACKEND; index++) {
      const route = pick(routes);
      const credential = pick(credentials)?.();
      const payload = body(route.fields);
      const contentType = pick(contentTypes);
      const headers: Record<string, string> = {};
      if (credential !== undefined)
        headers.authorization = pick([`Bearer ${credential}`, `bearer ${credential}`, credential]);
      if (contentType !== undefined && payload !== undefined) headers['content-type'] = contentType;
      if (random() < 0.1)
        headers['x-request-id'] = pick([secret(), 'abc"\n', '5f3afc66-34dc-4a90-97e3-47633dd69465']);
      if (random() < 0.1) headers['if-match'] = pick(['"1"', '*', secret(), 'W/"x"']);
      const url = route.url();
      let response: LightMyRequestResponse;
      try {
        response = await f.app.inject({
          method: route.method,
          url,
          headers,
          ...(payload === undefined ? {} : { payload }),
        });
      } catch (error) {
        failures.push(`#${String(index)} ${route.method} ${url}: inject threw ${String(error)}`);
        continue;
      }
      const where = `#${String(index)} ${route.method} ${url.slice(0, 80)} → ${String(response.statusCode)}`;
      if (response.statusCode >= 500) failures.push(`${where}: ${response.body.slice(0, 300)}`);
      if (response.statusCode < 400) continue;
      if (!String(response.headers['content-type']).startsWith('application/problem+json')) {
        failures.push(`${where}: content-type ${String(response.headers['content-type'])}`);
        continue;
      }
      const problem = response.json<Record<string, unknown>>();
      for (const field of ['code', 'detail', 'resolution', 'request_id'])
        if (typeof problem[field] !== 'string') failures.push(`${where}: problem without ${field}`);
      if (problem.status !== response.statusCode)
        failures.push(`${where}: status ${String(problem.status)} in the body`);
      const answered = JSON.stringify(response.headers) + response.body;
      for (const part of sent) if (answered.includes(part)) failures.push(`${where}: echoed a secret`);
    }
    const logs = f.logs.join('');
    for (const part of sent)
      if (logs.includes(part)) failures.push(`the logs hold a secret (${part.slice(0, 4)}…)`);
    expect(failures, `seed ${String(SEED)}`).toEqual([]);
  }, 180_000);
});
