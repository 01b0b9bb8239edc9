import { expect, it } from 'vitest';
import type { BrandContext } from '../../../../core/brand-context.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { brandApi, brandUrl } from '#test/support/fixtures/brand.js';
import { addUser } from '#test/support/users.js';

describeEachBackend('Brand API (GET and PUT /api/v1/workspaces/{id}/brand): security', (backend) => {
  const fixture = useFixture(backend);
  const { get } = brandApi(fixture);

  it('lets a member read the brand but not put it: 403 insufficient_role, and nothing changes', async () => {
    const f = fixture();
    const url = brandUrl(f.workspaceId);
    expect((await call(f, f.member.token, 'GET', url)).body).toBe((await get()).body);
    await refused(
      f,
      () => call(f, f.member.token, 'PUT', url, { body: { ...DEMO_BRAND, voice: 'Loud.' } }),
      '403 insufficient_role',
    );
  });

  it("answers 403 workspace_forbidden to another workspace's owner on GET and PUT, leaking no brand and changing nothing", async () => {
    const f = fixture();
    const before = await get();
    const url = brandUrl(f.workspaceId);
    const read = await refused(f, () => call(f, f.otherOwner.token, 'GET', url), '403 workspace_forbidden');
    expect(read.body).not.toContain(before.json<BrandContext>().description);
    await refused(
      f,
      () => call(f, f.otherOwner.token, 'PUT', url, { body: { ...DEMO_BRAND, voice: 'Hijacked.' } }),
      '403 workspace_forbidden',
    );
    expect((await get()).body).toBe(before.body);
  });

  it('refuses keys and anonymous callers on GET and PUT (a brand read key reads only through the read operation), and changes nothing', async () => {
    const f = fixture();
    const url = brandUrl(f.workspaceId);
    const cases: [string | undefined, string][] = [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [undefined, '401 missing_token'],
    ];
    for (const [credential, expected] of cases) {
      await refused(f, () => call(f, credential, 'GET', url), expected);
      await refused(f, () => call(f, credential, 'PUT', url, { body: DEMO_BRAND }), expected);
    }
  });

  it('keeps the session of a user removed from the workspace out at once: 403 workspace_forbidden', async () => {
    const f = fixture();
    const { user, token } = await addUser(f, { workspaceId: f.workspaceId, role: 'admin' });
    expect(outcome(await call(f, token, 'GET', brandUrl(f.workspaceId)))).toBe('200');
    const removed = await call(
      f,
      f.owner.token,
      'DELETE',
      `/api/v1/workspaces/${f.workspaceId}/members/${user.id}`,
    );
    expect(removed.statusCode).toBe(204);
    await refused(
      f,
      () => call(f, token, 'PUT', brandUrl(f.workspaceId), { body: DEMO_BRAND }),
      '403 workspace_forbidden',
    );
  });
});
