import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, isoNow, useFixture } from '#test/support/http-fixture.js';
import { allowSenders, type EmailSender, sendersUrl } from '#test/support/fixtures/email-settings.js';

describeEachBackend('Allowed senders (/api/v1/workspaces/{id}/email-senders): the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('lists the addresses and domains the operator allowed to owners and admins, alphabetically, each with its kind', async () => {
    const f = fixture();
    await allowSenders(f, f.workspaceId, 'News@Acme.example', 'acme.example', 'billing@shop.example');

    for (const token of [f.owner.token, f.admin.token]) {
      const response = await call(f, token, 'GET', sendersUrl(f.workspaceId));
      expect(response.statusCode).toBe(200);
      expect(response.json<{ senders: EmailSender[] }>().senders).toEqual([
        { sender: 'acme.example', kind: 'domain', created_at: isoNow(f) },
        { sender: 'billing@shop.example', kind: 'address', created_at: isoNow(f) },
        { sender: 'news@acme.example', kind: 'address', created_at: isoNow(f) },
      ]);
    }
  });

  it('lists none for a workspace the operator has not set up yet', async () => {
    const f = fixture();
    const response = await call(f, f.otherOwner.token, 'GET', sendersUrl(f.otherWorkspaceId));
    expect(response.json()).toEqual({ senders: [] });
  });
});
