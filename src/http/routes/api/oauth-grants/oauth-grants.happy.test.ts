import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, useFixture } from '#test/support/http-fixture.js';
import { connectedGrant, grantsSeen, listGrants, revokeGrant } from '#test/support/fixtures/oauth-grants.js';

describeEachBackend('Connected apps (/api/v1/workspaces/{id}/oauth-grants): the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('lists a connected app with its client, user, scopes and times, newest first', async () => {
    const f = fixture();
    const { grantId } = await connectedGrant(f, f.member.token);
    const response = await listGrants(f, f.owner.token);
    expect(response.statusCode).toBe(200);
    const [grant] = (await grantsSeen(f, f.owner.token)).filter((listed) => listed.id === grantId);
    expect(grant).toEqual({
      id: grantId,
      client_id: expect.stringMatching(/^oc_/) as string,
      client_name: 'Test Agent',
      user_id: f.member.user.id,
      user_email: f.member.user.email,
      scopes: ['brand:read', 'campaigns:read'],
      created_at: new Date(f.clock.now()).toISOString(),
      last_used_at: new Date(f.clock.now()).toISOString(),
    });
  });

  it('revokes with 204: the app’s access token is refused on its next use, audited', async () => {
    const f = fixture();
    const { grantId, accessToken } = await connectedGrant(f, f.member.token);
    expect((await revokeGrant(f, f.admin.token, grantId)).statusCode).toBe(204);
    await expect(f.app.services.oauthTokens.verify(accessToken)).rejects.toMatchObject({
      code: 'invalid_token',
    });
    expect((await grantsSeen(f, f.owner.token)).some((grant) => grant.id === grantId)).toBe(false);
    const revoked = (await auditLog(f)).find(
      (event) => event.action === 'oauth_grant.revoked' && event.target.id === grantId,
    );
    expect(revoked).toMatchObject({
      actor: { type: 'user', id: f.admin.user.id },
      details: { reason: 'revoked' },
    });
  });

  it('lets a member revoke their own connected app', async () => {
    const f = fixture();
    const { grantId } = await connectedGrant(f, f.member.token);
    expect((await revokeGrant(f, f.member.token, grantId)).statusCode).toBe(204);
  });
});
