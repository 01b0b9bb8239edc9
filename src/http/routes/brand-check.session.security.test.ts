import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { checkCopy } from '#test/support/fixtures/brand-check.js';
import { consoleAccount, consoleSessionApi } from '#test/support/fixtures/auth.js';
import { outcome, unchanged, useFixture } from '#test/support/http-fixture.js';

describeEachBackend('POST /functions/v1/brand-check with the console session: security', (backend) => {
  const fixture = useFixture(backend, { extend: consoleAccount });
  const { session } = consoleSessionApi(fixture);

  it('takes the session cookie with its CSRF token, and refuses it without one or with a forged one', async () => {
    const f = fixture();
    const { cookie, csrf } = await session();
    const ok = await unchanged(f, () =>
      checkCopy(f.app, f.workspaceId, { text: 'Hello' }, { headers: { cookie, 'x-csrf-token': csrf } }),
    );
    expect(ok.statusCode).toBe(200);
    const refusals: Record<string, string>[] = [{ cookie }, { cookie, 'x-csrf-token': 'forged' }];
    for (const headers of refusals) {
      const refused = await unchanged(f, () =>
        checkCopy(f.app, f.workspaceId, { text: 'Hello' }, { headers }),
      );
      expect(outcome(refused)).toBe('403 csrf_failed');
    }
  });

  it("refuses the session's cookie on another workspace with 403 workspace_forbidden", async () => {
    const f = fixture();
    const { cookie, csrf } = await session();
    const response = await checkCopy(
      f.app,
      f.otherWorkspaceId,
      { text: 'Hello' },
      {
        headers: { cookie, 'x-csrf-token': csrf },
      },
    );
    expect(outcome(response)).toBe('403 workspace_forbidden');
  });
});
