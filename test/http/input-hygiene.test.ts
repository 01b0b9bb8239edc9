import type { HTTPMethods } from 'fastify';
import { expect, it } from 'vitest';
import { WORKSPACE_API_KEY } from '../../src/core/secret-keys.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { call, problemOf, useFixture } from '#test/support/http-fixture.js';
import { campaignsUrl, newDraft } from '#test/support/fixtures/campaigns.js';

/*
 * Input that every route must refuse cleanly on both backends: PostgreSQL text cannot hold a NUL character
 * (SQLite can), so without one shared check the same request would be a 500 on one backend and stored on
 * the other.
 */
describeEachBackend('input hygiene', (backend) => {
  const fixture = useFixture(backend);

  const cases: {
    name: string;
    method: HTTPMethods;
    url: (ids: { workspaceId: string; campaignId: string }) => string;
    body?: unknown;
    field: string;
    credential?: 'owner' | 'brandKey';
  }[] = [
    {
      name: 'the read operation, workspace_id in the body',
      method: 'POST',
      url: () => '/functions/v1/brand-agent',
      body: { action: 'context', workspace_id: 'ws_\u0000' },
      field: 'workspace_id',
      credential: 'brandKey',
    },
    {
      name: 'a workspace id in the path',
      method: 'GET',
      url: () => '/api/v1/workspaces/ws_%00x/brand',
      field: 'id',
    },
    {
      name: 'a campaign id in the path',
      method: 'GET',
      url: ({ workspaceId }) => `${campaignsUrl(workspaceId)}/cmp_%00`,
      field: 'campaign_id',
    },
    {
      name: 'a campaign cursor in the query',
      method: 'GET',
      url: ({ workspaceId }) => `${campaignsUrl(workspaceId)}?cursor=%00`,
      field: 'cursor',
    },
    {
      name: 'a new campaign name',
      method: 'POST',
      url: ({ workspaceId }) => campaignsUrl(workspaceId),
      body: { name: 'a\u0000b' },
      field: 'name',
    },
    {
      name: 'a campaign body edit',
      method: 'PATCH',
      url: ({ workspaceId, campaignId }) => `${campaignsUrl(workspaceId)}/${campaignId}`,
      body: { body_html: '<p>\u0000</p>' },
      field: 'body_html',
    },
    {
      name: 'a knowledge tag of the brand document',
      method: 'PUT',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/brand`,
      body: {
        name: 'Acme',
        knowledge: [{ kind: 'fact', title: 't', content: 'c', tags: ['ok', 'x\u0000'] }],
      },
      field: 'knowledge[0].tags[1]',
    },
    {
      name: 'an API key name',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/api-keys`,
      body: { name: 'k\u0000' },
      field: 'name',
    },
    {
      name: 'a key id in the path',
      method: 'DELETE',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/api-keys/ak_%00`,
      field: 'key_id',
    },
    {
      name: 'a webhook id in the path',
      method: 'GET',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/webhooks/wh_%00/secret`,
      field: 'webhook_id',
    },
    {
      name: 'a delivery id in the path',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/webhooks/wh_x/deliveries/dlv_%00/retry`,
      field: 'delivery_id',
    },
    {
      name: 'a delivery cursor in the query',
      method: 'GET',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/webhooks/wh_x/deliveries?cursor=%00`,
      field: 'cursor',
    },
    {
      name: 'a new webhook endpoint description',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/webhooks`,
      body: { url: 'https://hooks.example.com/in', events: ['*'], description: 'a\u0000b' },
      field: 'description',
    },
    {
      name: 'a webhook endpoint URL',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/webhooks`,
      body: { url: 'https://hooks.example.com/\u0000', events: ['*'] },
      field: 'url',
    },
  ];

  it.each(cases)('refuses a NUL character in $name with 400 naming $field, changing nothing', async (c) => {
    const f = fixture();
    const draft = await newDraft(f);
    const before = await snapshotTables(f.database.config);
    const credential = c.credential === 'brandKey' ? f.brandKey : f.owner.token;
    const response = await call(
      f,
      credential,
      c.method,
      c.url({ workspaceId: f.workspaceId, campaignId: draft.id }),
      {
        ...(c.body === undefined ? {} : { body: c.body }),
      },
    );
    expect(response.statusCode).toBe(400);
    const problem = problemOf(response);
    expect(problem.code).toBe('invalid_request');
    expect(problem.errors).toEqual([
      { field: c.field, message: 'must not contain NUL (\\u0000) characters' },
    ]);
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });

  /** Single-line text of every kind: what a line break or control character would break (docs/reading-brand-context.md "Errors"). */
  const singleLineCases: {
    name: string;
    method: HTTPMethods;
    url: (ids: { workspaceId: string; campaignId: string }) => string;
    body: (text: string) => unknown;
    field: string;
  }[] = [
    {
      name: 'a new workspace name',
      method: 'POST',
      url: () => '/api/v1/workspaces',
      body: (text) => ({ name: text }),
      field: 'name',
    },
    {
      name: 'the brand name (the workspace name)',
      method: 'PUT',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/brand`,
      body: (text) => ({ name: text }),
      field: 'name',
    },
    {
      name: 'a brand read key name',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/brand-keys`,
      body: (text) => ({ name: text }),
      field: 'name',
    },
    {
      name: 'an API key name',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/api-keys`,
      body: (text) => ({ name: text }),
      field: 'name',
    },
    {
      name: 'an access token name',
      method: 'POST',
      url: () => '/api/v1/tokens',
      body: (text) => ({ name: text }),
      field: 'name',
    },
    {
      name: 'a new webhook endpoint description',
      method: 'POST',
      url: ({ workspaceId }) => `/api/v1/workspaces/${workspaceId}/webhooks`,
      body: (text) => ({ url: 'https://hooks.example.com/in', events: ['*'], description: text }),
      field: 'description',
    },
    {
      name: 'a new campaign name',
      method: 'POST',
      url: ({ workspaceId }) => campaignsUrl(workspaceId),
      body: (text) => ({ name: text }),
      field: 'name',
    },
    {
      name: 'a campaign subject',
      method: 'PATCH',
      url: ({ workspaceId, campaignId }) => `${campaignsUrl(workspaceId)}/${campaignId}`,
      body: (text) => ({ subject: text }),
      field: 'subject',
    },
    {
      name: 'a campaign preheader',
      method: 'PATCH',
      url: ({ workspaceId, campaignId }) => `${campaignsUrl(workspaceId)}/${campaignId}`,
      body: (text) => ({ preheader: text }),
      field: 'preheader',
    },
  ];
  const notOneLine = [
    ['a C1 control (U+0085)', 'a\u0085b', /control characters/],
    ['a C1 control (U+009B)', 'a\u009bb', /control characters/],
    ['a line separator (U+2028)', 'a\u2028b', /single line/],
    ['a paragraph separator (U+2029)', 'a\u2029b', /single line/],
    ['a line feed', 'a\nb', /single line/],
  ] as const;

  it.each(singleLineCases)(
    'refuses C1 controls and line breaks in $name with 400 naming $field, changing nothing',
    async (c) => {
      const f = fixture();
      const draft = await newDraft(f);
      const before = await snapshotTables(f.database.config);
      for (const [what, text, said] of notOneLine) {
        const response = await call(
          f,
          f.owner.token,
          c.method,
          c.url({ workspaceId: f.workspaceId, campaignId: draft.id }),
          { body: c.body(text), headers: c.method === 'PATCH' ? { 'if-match': '"1"' } : {} },
        );
        expect(response.statusCode, what).toBe(400);
        const problem = problemOf(response);
        expect(problem.code, what).toBe('invalid_request');
        expect(
          problem.errors?.map((issue) => issue.field),
          what,
        ).toEqual([c.field]);
        expect(problem.errors?.[0]?.message, what).toMatch(said);
      }
      expect(await snapshotTables(f.database.config)).toEqual(before);
    },
  );

  it('never echoes a key pasted as a field name: unknown fields are named with the key redacted', async () => {
    const f = fixture();
    const pasted = WORKSPACE_API_KEY.generate();
    const response = await call(f, f.owner.token, 'POST', campaignsUrl(f.workspaceId), {
      body: { name: 'x', [pasted]: true },
    });
    expect(response.statusCode).toBe(400);
    expect(response.body).not.toContain(pasted);
    expect(problemOf(response).errors).toEqual([
      { field: 'wsk_[REDACTED]', message: 'is not a known field' },
    ]);
  });
});
