import { it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, refused, useFixture } from '#test/support/http-fixture.js';
import { createEmailKey, keysUrl } from '#test/support/fixtures/keys.js';

describeEachBackend('Transactional email keys (/api/v1/workspaces/{id}/email-keys): errors', (backend) => {
  const fixture = useFixture(backend);

  it('has no route that creates or revokes one: the operator does, with the CLI (404 not_found, nothing changes)', async () => {
    const f = fixture();
    const key = await createEmailKey(f, 'operator issued');
    const url = keysUrl(f, 'email-keys');
    await refused(
      f,
      () => call(f, f.owner.token, 'POST', url, { body: { name: 'self-issued' } }),
      '404 not_found',
    );
    await refused(f, () => call(f, f.owner.token, 'DELETE', `${url}/${key.id}`), '404 not_found');
  });

  it('answers 404 workspace_not_found on a workspace that does not exist, and changes nothing', async () => {
    const f = fixture();
    await refused(
      f,
      () => call(f, f.owner.token, 'GET', keysUrl(f, 'email-keys', 'ws_DoesNotExist')),
      '404 workspace_not_found',
    );
  });
});
