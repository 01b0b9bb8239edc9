import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { addUser } from '#test/support/users.js';
import {
  call,
  type Fixture,
  outcome,
  problemOf,
  refused,
  type RouteCall,
  useFixture,
} from '#test/support/http-fixture.js';
import {
  membersApi,
  membersOf,
  membersUrl,
  memberUrl,
  newEmail,
  roleOf,
  signIn,
  TEMPORARY,
} from '#test/support/fixtures/members.js';

/** Every member route of `workspaceId`, with a valid body, removing `userId`. */
function memberRoutes(workspaceId: string, userId: string): RouteCall[] {
  return [
    { method: 'GET', url: membersUrl(workspaceId) },
    {
      method: 'POST',
      url: membersUrl(workspaceId),
      body: { email: 'intruder@members.example', role: 'owner' },
    },
    { method: 'DELETE', url: memberUrl(workspaceId, userId) },
  ];
}

describeEachBackend('Members API: security', (backend) => {
  const fixture = useFixture(backend);

  /** Calls every member route of `workspaceId` with `credential`: each answers `expected` and changes nothing. */
  async function refusedOnEveryRoute(
    f: Fixture,
    credential: string | undefined,
    workspaceId: string,
    expected: string,
  ): Promise<LightMyRequestResponse[]> {
    const responses: LightMyRequestResponse[] = [];
    for (const route of memberRoutes(workspaceId, f.member.user.id)) {
      responses.push(
        await refused(f, () => call(f, credential, route.method, route.url, { body: route.body }), expected),
      );
    }
    return responses;
  }

  describe('roles', () => {
    it('refuses a member (403 insufficient_role) before looking at the password, and changes nothing', async () => {
      const f = fixture();
      const before = await snapshotTables(f.database.config);
      const response = await membersApi(f, f.member.token).add({
        email: newEmail(),
        role: 'member',
        password: TEMPORARY,
      });
      expect(response.statusCode).toBe(403);
      expect(problemOf(response).code).toBe('insufficient_role');
      expect(await snapshotTables(f.database.config)).toEqual(before);
    });

    it('lets a member list the members but remove no one, not even themselves: 403 insufficient_role', async () => {
      const f = fixture();
      const api = membersApi(f, f.member.token);
      expect(outcome(await api.list())).toBe('200');
      for (const { user } of [f.owner, f.admin, f.member]) {
        const response = await refused(f, () => api.remove(user.id), '403 insufficient_role');
        expect(problemOf(response).detail).toBe(
          'The member role does not allow members.write in this workspace.',
        );
      }
      expect(await roleOf(f, f.member.user.id)).toBe('member');
    });

    it('refuses an admin who adds an owner (403 insufficient_role) and creates no account, with or without a password', async () => {
      const f = fixture();
      const api = membersApi(f, f.admin.token);
      const email = newEmail();
      for (const body of [
        { email, role: 'owner' },
        { email, role: 'owner', password: TEMPORARY },
      ]) {
        const response = await refused(f, () => api.add(body), '403 insufficient_role');
        expect(problemOf(response).detail).toBe('An admin cannot add or remove an owner.');
      }
      expect(outcome(await signIn(f, email, TEMPORARY))).toBe('401 invalid_credentials');
    });

    it('refuses an admin who removes an owner (403 insufficient_role), and the owner stays', async () => {
      const f = fixture();
      const response = await refused(
        f,
        () => membersApi(f, f.admin.token).remove(f.owner.user.id),
        '403 insufficient_role',
      );
      expect(problemOf(response).detail).toBe('An admin cannot add or remove an owner.');
      expect(await roleOf(f, f.owner.user.id)).toBe('owner');
    });

    it('refuses an admin who promotes themselves by adding their account again as an owner', async () => {
      const f = fixture();
      await refused(
        f,
        () => membersApi(f, f.admin.token).add({ email: f.admin.user.email, role: 'owner' }),
        '403 insufficient_role',
      );
      expect(await roleOf(f, f.admin.user.id)).toBe('admin');
    });
  });

  describe('workspace boundaries', () => {
    it("answers 403 workspace_forbidden to another workspace's owner on every member route, leaking no member and changing nothing", async () => {
      const f = fixture();
      const responses = await refusedOnEveryRoute(
        f,
        f.otherOwner.token,
        f.workspaceId,
        '403 workspace_forbidden',
      );
      for (const response of responses) {
        for (const { user } of [f.owner, f.admin, f.member]) expect(response.body).not.toContain(user.email);
        expect(problemOf(response).resolution).toMatch(/ask an owner or admin of that workspace/);
      }
    });

    it("answers 404 member_not_found to an owner who names another workspace's member under their own workspace, and the member stays", async () => {
      const f = fixture();
      await refused(
        f,
        () => membersApi(f, f.otherOwner.token, f.otherWorkspaceId).remove(f.member.user.id),
        '404 member_not_found',
      );
      expect(await roleOf(f, f.member.user.id)).toBe('member');
      const theirs = await membersOf(f, f.otherWorkspaceId, f.otherOwner.token);
      expect(theirs.map((member) => member.user_id)).not.toContain(f.member.user.id);
    });

    it('answers 404 workspace_not_found on a workspace that does not exist, and changes nothing', async () => {
      const f = fixture();
      await refusedOnEveryRoute(f, f.owner.token, 'ws_DoesNotExist0000000000000', '404 workspace_not_found');
    });

    it('locks a removed member out of the member routes at once', async () => {
      const f = fixture();
      const removed = await addUser(f, { workspaceId: f.workspaceId, role: 'admin' });
      expect(outcome(await membersApi(f, f.owner.token).remove(removed.user.id))).toBe('204');
      await refusedOnEveryRoute(f, removed.token, f.workspaceId, '403 workspace_forbidden');
    });
  });

  describe('credentials', () => {
    it('answers 401 missing_token to a call without credentials on every member route, and changes nothing', async () => {
      const f = fixture();
      const responses = await refusedOnEveryRoute(f, undefined, f.workspaceId, '401 missing_token');
      for (const response of responses)
        expect(response.headers['www-authenticate']).toBe('Bearer realm="brand-context"');
    });

    it("answers 403 to the workspace's own keys on every member route: keys manage no members", async () => {
      const f = fixture();
      await refusedOnEveryRoute(f, f.apiKey, f.workspaceId, '403 api_key_not_allowed');
      await refusedOnEveryRoute(f, f.brandKey, f.workspaceId, '403 brand_key_not_allowed');
    });
  });
});
