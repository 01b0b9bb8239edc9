import { it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { refused, useFixture } from '#test/support/http-fixture.js';
import { connectedGrant, revokeGrant } from '#test/support/fixtures/oauth-grants.js';

describeEachBackend('Connected apps (/api/v1/workspaces/{id}/oauth-grants): errors', (backend) => {
  const fixture = useFixture(backend);

  it('answers 404 oauth_grant_not_found for an unknown grant, and for one already revoked', async () => {
    const f = fixture();
    await refused(f, () => revokeGrant(f, f.owner.token, 'og_unknown'), '404 oauth_grant_not_found');
    const { grantId } = await connectedGrant(f, f.owner.token);
    await revokeGrant(f, f.owner.token, grantId);
    await refused(f, () => revokeGrant(f, f.owner.token, grantId), '404 oauth_grant_not_found');
  });
});
