import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, refused, useFixture } from '#test/support/http-fixture.js';
import { emailKeys, refusedToEveryKey } from '#test/support/fixtures/email.js';
import { allowSenders, type EmailSender, sendersUrl } from '#test/support/fixtures/email-settings.js';

describeEachBackend('Allowed senders (/api/v1/workspaces/{id}/email-senders): security', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  it('answers 403 insufficient_role to a member: the email settings are for owners and admins', async () => {
    const f = fixture();
    await refused(
      f,
      () => call(f, f.member.token, 'GET', sendersUrl(f.workspaceId)),
      '403 insufficient_role',
    );
  });

  it("answers 403 workspace_forbidden to another workspace's owner, whose own listing has none of this workspace's senders", async () => {
    const f = fixture();
    await allowSenders(f, f.workspaceId, 'secret-launch.example');
    const refusal = await refused(
      f,
      () => call(f, f.otherOwner.token, 'GET', sendersUrl(f.workspaceId)),
      '403 workspace_forbidden',
    );
    expect(refusal.body).not.toContain('secret-launch');
    const own = await call(f, f.otherOwner.token, 'GET', sendersUrl(f.otherWorkspaceId));
    expect(own.json<{ senders: EmailSender[] }>().senders.map((sender) => sender.sender)).not.toContain(
      'secret-launch.example',
    );
  });

  it('lets no key list them, a transactional email key included, and without credentials answers 401 missing_token', async () => {
    const f = fixture();
    await refusedToEveryKey(f, f.emailKey, [{ method: 'GET', url: sendersUrl(f.workspaceId) }]);
  });
});
