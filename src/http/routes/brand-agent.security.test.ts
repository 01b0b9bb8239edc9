import { expect, it } from 'vitest';
import { BRAND_KEY } from '../../core/secret-keys.js';
import { createBrandKey, listBrandKeys } from '../../services/keys/keys.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { PATH, readContext } from '#test/support/fixtures/brand-agent.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { mistype } from '#test/support/mistype.js';

describeEachBackend('POST /functions/v1/brand-agent: security', (backend) => {
  const fixture = useFixture(backend);

  it('stores no key in plaintext: no table holds any created key or its secret part', async () => {
    const { deps, database, workspaceId, otherWorkspaceId } = fixture();
    const keys = [
      ...(await Promise.all(
        [1, 2, 3].map((i) => createBrandKey(deps, OPERATOR, { workspaceId, name: `scan ${i}` })),
      )),
      await createBrandKey(deps, OPERATOR, { workspaceId: otherWorkspaceId, name: 'scan other' }),
    ];
    const dump = JSON.stringify(await snapshotTables(database.config));
    expect(dump).toContain(keys[0]?.id);
    for (const { key } of keys) {
      expect(dump).not.toContain(key);
      // the 30 random characters, which is what a leak of a prefix-stripped key would look like
      expect(dump).not.toContain(key.slice(4, 34));
    }
  });

  it('never lists a key secret or its hash', async () => {
    const { deps, workspaceId } = fixture();
    const created = await createBrandKey(deps, OPERATOR, { workspaceId, name: 'listing' });
    const listing = JSON.stringify(await listBrandKeys(deps, workspaceId));
    expect(listing).toContain(created.id);
    expect(listing).not.toContain(created.key);
    expect(listing).not.toContain(created.key.slice(4, 34));
    expect(listing).not.toMatch(/[0-9a-f]{64}/);
  });

  it('writes no key or Authorization header to the logs, whatever the request', async () => {
    const { app, logs, workspaceId, brandKey: key } = fixture();
    const unknown = BRAND_KEY.generate();
    const malformed = mistype(key);
    await readContext(app, workspaceId, { key });
    await readContext(app, workspaceId, { key: unknown });
    await readContext(app, workspaceId, { authorization: `Bearer ${malformed}` });
    await readContext(app, workspaceId, { authorization: `Basic ${key}` });
    await app.inject({
      method: 'POST',
      url: `${PATH}?key=${key}`,
      headers: { authorization: `Bearer ${key}` },
    });
    await app.inject({ method: 'GET', url: `/nowhere/${key}` });
    const text = logs.join('');
    expect(text).toContain('"status":200');
    expect(text).toContain('brk_[REDACTED]');
    for (const secret of [key, unknown, malformed, key.slice(4, 34)]) expect(text).not.toContain(secret);
    expect(text.toLowerCase()).not.toContain('authorization');
  });

  it('never echoes the key in an error body', async () => {
    const { app, workspaceId, otherWorkspaceId, brandKey: key } = fixture();
    const responses = await Promise.all([
      readContext(app, otherWorkspaceId, { key }),
      readContext(app, workspaceId, { key, rawBody: `{"action":"${key}"` }),
      readContext(app, workspaceId, { key, body: { action: key, workspace_id: workspaceId } }),
      readContext(app, workspaceId, { key, body: { action: 'context', workspace_id: key } }),
    ]);
    for (const response of responses) {
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.body).not.toContain(key.slice(4, 34));
    }
  });

  it('lets a key read only its own workspace (BOLA): each key gets 403 on the other', async () => {
    const { app, workspaceId, otherWorkspaceId, brandKey: key, otherBrandKey: otherKey } = fixture();
    expect((await readContext(app, workspaceId, { key })).statusCode).toBe(200);
    expect((await readContext(app, otherWorkspaceId, { key: otherKey })).statusCode).toBe(200);
    const crossed = [
      await readContext(app, otherWorkspaceId, { key }),
      await readContext(app, workspaceId, { key: otherKey }),
    ];
    for (const response of crossed) {
      expect(response.statusCode).toBe(403);
      expect(problemOf(response).code).toBe('workspace_forbidden');
      expect(response.body).not.toContain('Acme');
    }
  });

  it('replaces a request id that could forge log lines', async () => {
    const { app, logs, workspaceId, brandKey: key } = fixture();
    const forged = 'abc"\n{"level":60,"msg":"forged"}';
    const response = await readContext(app, workspaceId, { key, headers: { 'x-request-id': forged } });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs.join('')).not.toContain('"msg":"forged"');
  });

  it('answers no other route for a brand key: it is good only for the read operation', async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    for (const url of [
      '/api/v1/workspaces',
      `/api/v1/workspaces/${workspaceId}/brand`,
      '/functions/v1/other',
    ]) {
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${key}` } });
      expect(response.statusCode).toBeGreaterThanOrEqual(400);
      expect(response.body).not.toContain('Acme');
    }
  });
});
