import { expect, it } from 'vitest';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { call, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { keysUrl } from '#test/support/fixtures/keys.js';

describeEachBackend('Workspace keys (/api/v1/workspaces/{id}/api-keys and brand-keys): errors', (backend) => {
  const fixture = useFixture(backend);

  it('refuses an empty name with 400 naming the field, and creates nothing', async () => {
    const f = fixture();
    const before = await snapshotTables(f.database.config);
    const responses = [
      await call(f, f.owner.token, 'POST', keysUrl(f), { body: { name: ' ' } }),
      await call(f, f.owner.token, 'POST', keysUrl(f), { body: {} }),
      await call(f, f.owner.token, 'POST', keysUrl(f), { body: { name: 'x', scopes: ['brand.write'] } }),
    ];
    expect(responses.map(outcome)).toEqual(Array(3).fill('400 invalid_request'));
    expect(
      responses.map((r) => r.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)),
    ).toEqual([['name'], ['name'], ['scopes']]);
    expect(await snapshotTables(f.database.config)).toEqual(before);
  });
  it('refuses a brand read key without a name with 400 naming the field, and creates nothing', async () => {
    const f = fixture();
    for (const body of [{ name: ' ' }, {}]) {
      const response = await refused(
        f,
        () => call(f, f.owner.token, 'POST', keysUrl(f, 'brand-keys'), { body }),
        '400 invalid_request',
      );
      expect(response.json<{ errors: { field: string }[] }>().errors.map((e) => e.field)).toEqual(['name']);
    }
  });

  it('answers 404 key_not_found to revoking an unknown brand read key, and changes nothing', async () => {
    const f = fixture();
    await refused(
      f,
      () => call(f, f.owner.token, 'DELETE', `${keysUrl(f, 'brand-keys')}/bk_DoesNotExist`),
      '404 key_not_found',
    );
  });

  it('answers 404 workspace_not_found on a workspace that does not exist, for either kind, and changes nothing', async () => {
    const f = fixture();
    for (const kind of ['api-keys', 'brand-keys'] as const) {
      const url = keysUrl(f, kind, 'ws_DoesNotExist');
      await refused(f, () => call(f, f.owner.token, 'GET', url), '404 workspace_not_found');
      await refused(
        f,
        () => call(f, f.owner.token, 'POST', url, { body: { name: 'x' } }),
        '404 workspace_not_found',
      );
    }
  });
});
