import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, callEach, outcome, refused, unchanged, useFixture } from '#test/support/http-fixture.js';
import { emailKeys, refusedToEveryKey, suppress } from '#test/support/fixtures/email.js';
import {
  type EmailSuppression,
  suppressionRoutes,
  suppressionsUrl,
  suppressionUrl,
} from '#test/support/fixtures/email-settings.js';

const BOUNCED = 'bounced@example.com';

describeEachBackend(
  'Suppressed addresses (/api/v1/workspaces/{id}/email-suppressions): security',
  (backend) => {
    const fixture = useFixture(backend, {
      extend: async (f) => {
        await suppress(f, f.workspaceId, BOUNCED);
        return emailKeys(f);
      },
    });

    const stillSuppressed = async () => {
      const f = fixture();
      const response = await call(f, f.owner.token, 'GET', suppressionsUrl(f.workspaceId));
      return response.json<{ suppressions: EmailSuppression[] }>().suppressions.map((s) => s.email);
    };

    it('answers 403 insufficient_role to a member, listing or removing, and changes nothing', async () => {
      const f = fixture();
      const routes = suppressionRoutes(f.workspaceId, BOUNCED);
      const responses = await unchanged(f, () => callEach(f, f.member.token, routes));
      expect(responses.map(outcome)).toEqual(Array(2).fill('403 insufficient_role'));
      expect(await stillSuppressed()).toEqual([BOUNCED]);
    });

    it("answers 403 workspace_forbidden to another workspace's owner, and 404 suppression_not_found through their own workspace", async () => {
      const f = fixture();
      const routes = suppressionRoutes(f.workspaceId, BOUNCED);
      const responses = await unchanged(f, () => callEach(f, f.otherOwner.token, routes));
      expect(responses.map(outcome)).toEqual(Array(2).fill('403 workspace_forbidden'));
      for (const response of responses) expect(response.body).not.toContain(BOUNCED);
      await refused(
        f,
        () => call(f, f.otherOwner.token, 'DELETE', suppressionUrl(f.otherWorkspaceId, BOUNCED)),
        '404 suppression_not_found',
      );
      expect(await stillSuppressed()).toEqual([BOUNCED]);
    });

    it('lets no key list or remove them, a transactional email key included, and changes nothing', async () => {
      const f = fixture();
      await refusedToEveryKey(f, f.emailKey, suppressionRoutes(f.workspaceId, BOUNCED));
      expect(await stillSuppressed()).toEqual([BOUNCED]);
    });
  },
);
