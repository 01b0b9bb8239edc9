import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, problemOf, refused, useFixture } from '#test/support/http-fixture.js';
import { suppress } from '#test/support/fixtures/email.js';
import { suppressionsUrl, suppressionUrl } from '#test/support/fixtures/email-settings.js';

describeEachBackend(
  'Suppressed addresses (/api/v1/workspaces/{id}/email-suppressions): errors',
  (backend) => {
    const fixture = useFixture(backend);

    it('answers 404 suppression_not_found to removing an address that is not suppressed, or no longer, and changes nothing', async () => {
      const f = fixture();
      const never = await refused(
        f,
        () => call(f, f.owner.token, 'DELETE', suppressionUrl(f.workspaceId, 'never@example.com')),
        '404 suppression_not_found',
      );
      expect(problemOf(never).detail).toBe('never@example.com is not suppressed in this workspace.');

      await suppress(f, f.workspaceId, 'once@example.com');
      const url = suppressionUrl(f.workspaceId, 'once@example.com');
      expect((await call(f, f.owner.token, 'DELETE', url)).statusCode).toBe(204);
      await refused(f, () => call(f, f.owner.token, 'DELETE', url), '404 suppression_not_found');
    });

    it('answers 414 uri_too_long to an address over 100 characters, the limit of a path segment, and changes nothing', async () => {
      const f = fixture();
      await refused(
        f,
        () =>
          call(f, f.owner.token, 'DELETE', suppressionUrl(f.workspaceId, `${'a'.repeat(90)}@example.com`)),
        '414 uri_too_long',
      );
    });

    it('answers 404 workspace_not_found on a workspace that does not exist, and changes nothing', async () => {
      const f = fixture();
      await refused(
        f,
        () => call(f, f.owner.token, 'GET', suppressionsUrl('ws_DoesNotExist')),
        '404 workspace_not_found',
      );
      await refused(
        f,
        () => call(f, f.owner.token, 'DELETE', suppressionUrl('ws_DoesNotExist', 'ada@example.com')),
        '404 workspace_not_found',
      );
    });
  },
);
