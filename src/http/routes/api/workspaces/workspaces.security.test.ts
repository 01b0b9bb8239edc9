import { expect, it } from 'vitest';
import type { Workspace } from '../../../../contract/workspaces.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, refused, useFixture } from '#test/support/http-fixture.js';

const WORKSPACES = '/api/v1/workspaces';

describeEachBackend('Workspaces (GET and POST /api/v1/workspaces): security', (backend) => {
  const fixture = useFixture(backend);

  it('lists no workspace the caller is not a member of', async () => {
    const f = fixture();
    const theirs = await call(f, f.otherOwner.token, 'GET', WORKSPACES);
    expect(theirs.json<{ workspaces: Workspace[] }>().workspaces.map((w) => w.id)).toEqual([
      f.otherWorkspaceId,
    ]);
    const ours = await call(f, f.member.token, 'GET', WORKSPACES);
    expect(ours.body).not.toContain(f.otherWorkspaceId);
  });

  it('refuses keys and anonymous callers on GET and POST (workspaces belong to users), and creates nothing', async () => {
    const f = fixture();
    const cases: [string | undefined, string][] = [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [undefined, '401 missing_token'],
      ['not-a-token', '401 invalid_token'],
    ];
    for (const [credential, expected] of cases) {
      const listed = await refused(f, () => call(f, credential, 'GET', WORKSPACES), expected);
      expect(listed.body).not.toContain(f.workspaceId);
      await refused(
        f,
        () => call(f, credential, 'POST', WORKSPACES, { body: { name: 'Taken over' } }),
        expected,
      );
    }
  });

  it('makes no caller a member of a workspace they did not create', async () => {
    const f = fixture();
    const created = (
      await call(f, f.otherOwner.token, 'POST', WORKSPACES, { body: { name: 'Private' } })
    ).json<Workspace>();
    for (const who of [f.owner, f.admin, f.member]) {
      const listed = await call(f, who.token, 'GET', WORKSPACES);
      expect(listed.body).not.toContain(created.id);
      await refused(
        f,
        () => call(f, who.token, 'GET', `${WORKSPACES}/${created.id}/members`),
        '403 workspace_forbidden',
      );
    }
  });
});
