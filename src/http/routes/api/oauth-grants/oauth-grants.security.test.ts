import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { connectedGrant, grantsSeen, listGrants, revokeGrant } from '#test/support/fixtures/oauth-grants.js';

describeEachBackend('Connected apps (/api/v1/workspaces/{id}/oauth-grants): security', (backend) => {
  const fixture = useFixture(backend);

  it('shows owners and admins every member’s connected apps, and a member only their own', async () => {
    const f = fixture();
    const mine = await connectedGrant(f, f.member.token);
    const theirs = await connectedGrant(f, f.owner.token);
    for (const manager of [f.owner, f.admin]) {
      const ids = (await grantsSeen(f, manager.token)).map((grant) => grant.id);
      expect(ids).toEqual(expect.arrayContaining([mine.grantId, theirs.grantId]));
    }
    const seenByMember = (await grantsSeen(f, f.member.token)).map((grant) => grant.id);
    expect(seenByMember).toContain(mine.grantId);
    expect(seenByMember).not.toContain(theirs.grantId);
  });

  it('refuses a member revoking another member’s app (403 insufficient_role), which keeps working', async () => {
    const f = fixture();
    const { grantId, accessToken } = await connectedGrant(f, f.owner.token);
    await refused(f, () => revokeGrant(f, f.member.token, grantId), '403 insufficient_role');
    await expect(f.app.services.oauthTokens.verify(accessToken)).resolves.toMatchObject({ grantId });
  });

  it('keeps another workspace out: its owner gets 403, and a grant of another workspace is not found here', async () => {
    const f = fixture();
    const { grantId } = await connectedGrant(f, f.owner.token);
    expect(outcome(await listGrants(f, f.otherOwner.token))).toBe('403 workspace_forbidden');
    await refused(f, () => revokeGrant(f, f.otherOwner.token, grantId), '403 workspace_forbidden');
    const foreign = await connectedGrant(f, f.otherOwner.token, f.otherWorkspaceId);
    await refused(f, () => revokeGrant(f, f.owner.token, foreign.grantId), '404 oauth_grant_not_found');
  });

  it('refuses keys: connected apps are managed by people', async () => {
    const f = fixture();
    expect(outcome(await listGrants(f, f.brandKey))).toBe('403 brand_key_not_allowed');
    expect(outcome(await listGrants(f, f.apiKey))).toBe('403 api_key_not_allowed');
  });
});
