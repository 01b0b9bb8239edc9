import { it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, refused, useFixture } from '#test/support/http-fixture.js';
import { allowSenders, sendersUrl } from '#test/support/fixtures/email-settings.js';

describeEachBackend('Allowed senders (/api/v1/workspaces/{id}/email-senders): errors', (backend) => {
  const fixture = useFixture(backend);

  it('has no route that adds or removes one: the operator does, with the CLI (404 not_found, nothing changes)', async () => {
    const f = fixture();
    await allowSenders(f, f.workspaceId, 'acme.example');
    const url = sendersUrl(f.workspaceId);
    await refused(
      f,
      () => call(f, f.owner.token, 'POST', url, { body: { sender: 'self.example' } }),
      '404 not_found',
    );
    await refused(f, () => call(f, f.owner.token, 'DELETE', `${url}/acme.example`), '404 not_found');
  });

  it('answers 404 workspace_not_found on a workspace that does not exist', async () => {
    const f = fixture();
    await refused(
      f,
      () => call(f, f.owner.token, 'GET', sendersUrl('ws_DoesNotExist')),
      '404 workspace_not_found',
    );
  });
});
