import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { call, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { resetReview, workspaceUrl } from '#test/support/fixtures/brand-draft.js';

describeEachBackend('Workspace (GET and PATCH /api/v1/workspaces/{id}): security', (backend) => {
  const fixture = useFixture(backend);

  it('lets a member read the workspace but change nothing of it: 403 insufficient_role', async () => {
    const f = fixture();
    await resetReview(f, 'off');
    const url = workspaceUrl(f.workspaceId);
    expect(outcome(await call(f, f.member.token, 'GET', url))).toBe('200');
    for (const body of [{ brand_review: 'required' }, { name: 'Members Only' }]) {
      await refused(f, () => call(f, f.member.token, 'PATCH', url, { body }), '403 insufficient_role');
    }
  });

  it('refuses a member before reading the body: 403, not 400, for an invalid one', async () => {
    const f = fixture();
    const response = await call(f, f.member.token, 'PATCH', workspaceUrl(f.workspaceId), {
      body: { brand_review: 'sometimes' },
    });
    expect(outcome(response)).toBe('403 insufficient_role');
  });

  it("answers 403 workspace_forbidden to another workspace's owner, leaking nothing and changing nothing", async () => {
    const f = fixture();
    const url = workspaceUrl(f.workspaceId);
    const read = await refused(f, () => call(f, f.otherOwner.token, 'GET', url), '403 workspace_forbidden');
    expect(read.body).not.toContain('Acme');
    await refused(
      f,
      () => call(f, f.otherOwner.token, 'PATCH', url, { body: { name: 'Taken over' } }),
      '403 workspace_forbidden',
    );
  });

  it('refuses keys and anonymous callers on GET and PATCH, and changes nothing', async () => {
    const f = fixture();
    const url = workspaceUrl(f.workspaceId);
    const cases: [string | undefined, string][] = [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [undefined, '401 missing_token'],
    ];
    for (const [credential, expected] of cases) {
      await refused(f, () => call(f, credential, 'GET', url), expected);
      await refused(
        f,
        () => call(f, credential, 'PATCH', url, { body: { brand_review: 'required' } }),
        expected,
      );
    }
  });
});
