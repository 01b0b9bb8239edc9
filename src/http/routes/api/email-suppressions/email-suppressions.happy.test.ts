import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, call, isoNow, useFixture } from '#test/support/http-fixture.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { suppress } from '#test/support/fixtures/email.js';
import {
  type EmailSuppression,
  suppressionsUrl,
  suppressionUrl,
} from '#test/support/fixtures/email-settings.js';

describeEachBackend(
  'Suppressed addresses (/api/v1/workspaces/{id}/email-suppressions): the happy paths',
  (backend) => {
    const fixture = useFixture(backend);
    const listed = async (token: string, workspaceId: string) =>
      (await call(fixture(), token, 'GET', suppressionsUrl(workspaceId))).json<{
        suppressions: EmailSuppression[];
      }>().suppressions;

    it('lists the addresses that bounced to owners and admins, newest first, with the relay’s answer', async () => {
      const f = fixture();
      await suppress(f, f.workspaceId, 'first@example.com');
      const firstAt = isoNow(f);
      f.clock.advance(MINUTE_MS);
      await suppress(f, f.workspaceId, 'second@example.com');

      for (const token of [f.owner.token, f.admin.token]) {
        expect(await listed(token, f.workspaceId)).toEqual([
          {
            email: 'second@example.com',
            reason: 'bounced',
            detail: '550 5.1.1 No such user',
            message_id: null,
            created_at: isoNow(f),
          },
          {
            email: 'first@example.com',
            reason: 'bounced',
            detail: '550 5.1.1 No such user',
            message_id: null,
            created_at: firstAt,
          },
        ]);
      }
    });

    it('removes an address with 204, in whatever case it is written, and records who removed it', async () => {
      const f = fixture();
      await suppress(f, f.workspaceId, 'fixed@example.com');
      const response = await call(
        f,
        f.admin.token,
        'DELETE',
        suppressionUrl(f.workspaceId, 'Fixed@Example.com'),
      );

      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await listed(f.owner.token, f.workspaceId)).map((s) => s.email)).not.toContain(
        'fixed@example.com',
      );
      expect((await auditLog(f))[0]).toMatchObject({
        action: 'email_suppression.removed',
        actor: { type: 'user', id: f.admin.user.id },
        target: { type: 'email_suppression', id: 'fixed@example.com' },
      });
    });
  },
);
