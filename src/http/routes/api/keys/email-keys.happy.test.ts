import { expect, it } from 'vitest';
import { OPERATOR } from '../../../../services/audit/audit.js';
import { KEY_SERVICES } from '../../../../services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, isoNow, useFixture } from '#test/support/http-fixture.js';
import { DAY_MS } from '#test/support/clock.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { createEmailKey, type KeyView, keysUrl, listKeys } from '#test/support/fixtures/keys.js';
import { issueSession } from '../../../../services/auth/tokens.js';

describeEachBackend(
  'Transactional email keys (/api/v1/workspaces/{id}/email-keys): the happy paths',
  (backend) => {
    const fixture = useFixture(backend);

    it('lists the keys the operator created to owners and admins, newest first: no expiry unless one was asked for', async () => {
      const f = fixture();
      const lasting = await createEmailKey(f, 'receipts');
      f.clock.advance(MINUTE_MS);
      const expiring = await createEmailKey(f, 'trial', { expiresInDays: 30 });

      for (const token of [f.owner.token, f.admin.token]) {
        const response = await call(f, token, 'GET', keysUrl(f, 'email-keys'));
        expect(response.statusCode).toBe(200);
        expect(response.json<{ keys: KeyView[] }>().keys).toEqual([
          {
            id: expiring.id,
            workspace_id: f.workspaceId,
            name: 'trial',
            prefix: expiring.prefix,
            last4: expiring.key.slice(-4),
            status: 'active',
            created_by: null,
            created_at: isoNow(f),
            expires_at: new Date(f.clock.now() + 30 * DAY_MS).toISOString(),
            revoked_at: null,
            last_used_at: null,
            creator: null,
          },
          {
            id: lasting.id,
            workspace_id: f.workspaceId,
            name: 'receipts',
            prefix: lasting.prefix,
            last4: lasting.key.slice(-4),
            status: 'active',
            created_by: null,
            created_at: lasting.created_at,
            expires_at: null,
            revoked_at: null,
            last_used_at: null,
            creator: null,
          },
        ]);
      }
    });

    it('shows a key the operator revoked as revoked, and one past its asked-for expiry as expired', async () => {
      const f = fixture();
      const revoked = await createEmailKey(f, 'leaked');
      await KEY_SERVICES.email.revoke(f.deps, OPERATOR, f.workspaceId, revoked.id);
      const expiring = await createEmailKey(f, 'one day', { expiresInDays: 1 });
      f.clock.advance(DAY_MS);
      try {
        // The fixture's sessions lapsed meanwhile: a fresh one.
        const { access_token: token } = await issueSession(f.deps, f.owner.user);
        const response = await call(f, token, 'GET', keysUrl(f, 'email-keys'));
        const listed = response.json<{ keys: KeyView[] }>().keys;
        expect(listed.find((key) => key.id === revoked.id)).toMatchObject({
          status: 'revoked',
          expires_at: null,
        });
        expect(listed.find((key) => key.id === expiring.id)?.status).toBe('expired');
      } finally {
        f.clock.advance(-DAY_MS);
      }
    });

    it('keeps the kinds apart: email-keys lists no brand or API key, and the other listings no email key', async () => {
      const f = fixture();
      const email = await createEmailKey(f, 'kept apart');
      expect((await listKeys(f, 'email-keys')).map((key) => key.id)).not.toContain(f.apiKeyId);
      expect((await listKeys(f, 'email-keys')).map((key) => key.id)).not.toContain(f.brandKeyId);
      for (const kind of ['api-keys', 'brand-keys'] as const)
        expect((await listKeys(f, kind)).map((key) => key.id)).not.toContain(email.id);
    });
  },
);
