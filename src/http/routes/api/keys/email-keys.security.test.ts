import { expect, it } from 'vitest';
import { hashKey } from '../../../../core/secret-keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, refused, useFixture } from '#test/support/http-fixture.js';
import { refusedToEveryKey } from '#test/support/fixtures/email.js';
import { createEmailKey, type KeyView, keysUrl } from '#test/support/fixtures/keys.js';

describeEachBackend('Transactional email keys (/api/v1/workspaces/{id}/email-keys): security', (backend) => {
  const fixture = useFixture(backend);

  it('never lists a key, its secret part or its hash', async () => {
    const f = fixture();
    const created = await createEmailKey(f, 'listing');
    const response = await call(f, f.owner.token, 'GET', keysUrl(f, 'email-keys'));
    expect(response.body).toContain(created.id);
    for (const secret of [created.key, created.key.slice(4, 34), hashKey(created.key)])
      expect(response.body).not.toContain(secret);
    expect(response.body).not.toMatch(/[0-9a-f]{64}/);
  });

  it('answers 403 insufficient_role to a member: the email settings are for owners and admins', async () => {
    const f = fixture();
    await createEmailKey(f, 'managers only');
    await refused(f, () => call(f, f.member.token, 'GET', keysUrl(f, 'email-keys')), '403 insufficient_role');
  });

  it("answers 403 workspace_forbidden to another workspace's owner, whose own listing has none of this workspace's keys", async () => {
    const f = fixture();
    const ours = await createEmailKey(f, 'ours');
    const theirs = await createEmailKey(f, 'theirs', { workspaceId: f.otherWorkspaceId });
    const refusal = await refused(
      f,
      () => call(f, f.otherOwner.token, 'GET', keysUrl(f, 'email-keys')),
      '403 workspace_forbidden',
    );
    expect(refusal.body).not.toContain(ours.id);
    const own = await call(f, f.otherOwner.token, 'GET', keysUrl(f, 'email-keys', f.otherWorkspaceId));
    expect(own.json<{ keys: KeyView[] }>().keys.map((key) => key.id)).toEqual([theirs.id]);
  });

  it('lets no key list them, a transactional email key included, and without credentials answers 401 missing_token', async () => {
    const f = fixture();
    const emailKey = await createEmailKey(f, 'sender');
    const responses = await refusedToEveryKey(f, emailKey.key, [
      { method: 'GET', url: keysUrl(f, 'email-keys') },
    ]);
    for (const response of responses) expect(response.body).not.toContain(emailKey.id);
  });
});
