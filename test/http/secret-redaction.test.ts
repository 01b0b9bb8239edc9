import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, useFixture } from '#test/support/http-fixture.js';
import { campaignsUrl } from '#test/support/fixtures/campaigns.js';

/*
 * Keys and tokens reach the service in places they should not be (a query string, a mistyped path, a header
 * that proxies log); none of them may come back in a response or go into a log line.
 */
describeEachBackend('secrets in unexpected places', (backend) => {
  const fixture = useFixture(backend);

  function secretsOf(f: ReturnType<typeof fixture>): string[] {
    // The random part of each key (what a key stripped of its prefix leaks), and a user token's signature.
    return [f.brandKey.slice(4, 34), f.apiKey.slice(4, 34), f.owner.token.split('.')[2] ?? f.owner.token];
  }

  function expectNoSecret(f: ReturnType<typeof fixture>, responses: LightMyRequestResponse[]): void {
    const logs = f.logs.join('');
    for (const response of responses) {
      const seen = JSON.stringify(response.headers) + response.body;
      for (const secret of secretsOf(f)) expect(seen).not.toContain(secret);
    }
    for (const secret of secretsOf(f)) expect(logs).not.toContain(secret);
  }

  it('masks a key that follows a letter, digit, underscore or %20 in a URL, in responses and logs', async () => {
    const f = fixture();
    const responses = [
      await call(f, undefined, 'POST', `/functions/v1/brand-agent?auth=Bearer%20${f.brandKey}`),
      await call(f, undefined, 'GET', `/nowhere/x_${f.brandKey}/7${f.apiKey}`),
      await call(f, undefined, 'GET', `/api/v1/workspaces/a${f.apiKey}/campaigns`),
      await call(f, undefined, 'GET', `/nowhere?token=${f.owner.token}`),
    ];
    for (const response of responses) expect(response.statusCode).toBeGreaterThanOrEqual(400);
    expect(f.logs.join('')).toContain('brk_[REDACTED]');
    expectNoSecret(f, responses);
  });

  it('replaces a key-shaped X-Request-Id instead of logging and echoing it', async () => {
    const f = fixture();
    for (const forged of [f.brandKey, `req-${f.apiKey}`, f.owner.token]) {
      const response = await call(f, f.brandKey, 'POST', '/functions/v1/brand-agent', {
        headers: { 'x-request-id': forged },
        body: { action: 'context', workspace_id: 'ws_nowhere' },
      });
      expect(response.statusCode).toBe(404);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect((JSON.parse(response.body) as { request_id: string }).request_id).toBe(
        response.headers['x-request-id'],
      );
      expectNoSecret(f, [response]);
    }
  });

  it('never echoes key-shaped input in 400 and 404 details or field names', async () => {
    const f = fixture();
    const responses = [
      await call(f, f.brandKey, 'POST', '/functions/v1/brand-agent', {
        body: { action: 'context', workspace_id: `x_${f.brandKey}` },
      }),
      await call(f, f.brandKey, 'POST', '/functions/v1/brand-agent', {
        body: { action: `a${f.apiKey}`, workspace_id: f.workspaceId },
      }),
      await call(f, f.brandKey, 'POST', '/functions/v1/brand-agent', {
        body: { action: 'context', workspace_id: f.workspaceId, [`_${f.brandKey}`]: 1 },
      }),
      await call(f, f.owner.token, 'GET', `${campaignsUrl(f.workspaceId)}/cmp_${f.apiKey}`),
      await call(f, f.owner.token, 'POST', campaignsUrl(f.workspaceId), {
        body: { name: 'x', [`n${f.owner.token}`]: 1 },
      }),
    ];
    expect(responses.map((response) => response.statusCode)).toEqual([404, 400, 400, 404, 400]);
    expectNoSecret(f, responses);
  });

  it('masks a webhook signing secret pasted into a path, a query, a field name or a header, in responses and logs', async () => {
    const f = fixture();
    const hooks = `/api/v1/workspaces/${f.workspaceId}/webhooks`;
    const created = await call(f, f.owner.token, 'POST', hooks, {
      body: { url: 'https://hooks.example.com/in', events: ['*'] },
    });
    expect(created.statusCode).toBe(201);
    const { id, secret } = created.json<{ id: string; secret: string }>();
    const body = secret.slice('whsec_'.length);
    const responses = [
      await call(f, f.owner.token, 'GET', `${hooks}/${secret}`),
      await call(f, f.owner.token, 'GET', `${hooks}/${secret}/deliveries/${secret}`),
      await call(f, f.owner.token, 'GET', `${hooks}/${id}/deliveries?cursor=${encodeURIComponent(secret)}`),
      await call(f, f.owner.token, 'GET', `/nowhere?secret=${secret}`),
      await call(f, f.owner.token, 'PATCH', `${hooks}/${id}`, { body: { [secret]: true } }),
      await call(f, f.owner.token, 'POST', hooks, {
        body: { url: `https://hooks.example.com/${secret}`, events: [secret] },
      }),
      await call(f, f.owner.token, 'GET', `${hooks}/${id}`, { headers: { 'x-request-id': secret } }),
    ];
    expect(responses.map((response) => response.statusCode)).toEqual([404, 404, 400, 404, 400, 400, 200]);
    // The random part, and a stretch of it without base64's + / = (what a URL-encoded copy keeps).
    const parts = [body.slice(0, 30), ...(body.match(/[0-9A-Za-z]{12,}/g) ?? []).slice(0, 1)];
    for (const response of responses) {
      const seen = JSON.stringify(response.headers) + response.body;
      for (const part of parts) expect(seen).not.toContain(part);
    }
    const logs = f.logs.join('');
    expect(logs).toContain('whsec_[REDACTED]');
    for (const part of parts) expect(logs).not.toContain(part);
  });
});
