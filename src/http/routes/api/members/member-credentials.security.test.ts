import { describe, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { keysUrl } from '#test/support/fixtures/keys.js';
import {
  credentialsUrl,
  idsMadeBy,
  idsOf,
  newCreator,
  removalApi,
} from '#test/support/fixtures/member-credentials.js';
import { memberUrl, roleOf } from '#test/support/fixtures/members.js';
import { newWebhook, webhooksApi } from '#test/support/fixtures/webhooks.js';
import {
  call,
  callEach,
  outcome,
  refused,
  type RouteCall,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';

/** The preview and the removal with revoke_credentials of `userId` in `workspaceId`. */
function routes(workspaceId: string, userId: string): RouteCall[] {
  return [
    { method: 'GET', url: credentialsUrl(workspaceId, userId) },
    { method: 'DELETE', url: `${memberUrl(workspaceId, userId)}?revoke_credentials=true` },
  ];
}

describeEachBackend('Removing a member, and what they created: security', (backend) => {
  const fixture = useFixture(backend);

  describe('roles', () => {
    it('refuses a member both routes (403 insufficient_role): they neither see nor revoke what an admin made', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      const responses = await unchanged(f, () =>
        callEach(f, f.member.token, routes(f.workspaceId, creator.user.id)),
      );
      expect(responses.map(outcome)).toEqual(['403 insufficient_role', '403 insufficient_role']);
      expect(responses.map((response) => response.body).join()).not.toContain(creator.brandKey.prefix);
      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
    });

    it('refuses an admin both routes for an owner (403 insufficient_role): the owner and their keys stay', async () => {
      const f = fixture();
      const owner = await newCreator(f, 'owner');
      const responses = await unchanged(f, () =>
        callEach(f, f.admin.token, routes(f.workspaceId, owner.user.id)),
      );
      expect(responses.map(outcome)).toEqual(['403 insufficient_role', '403 insufficient_role']);
      expect(await roleOf(f, owner.user.id)).toBe('owner');
      expect(outcome(await readContext(f.app, f.workspaceId, { key: owner.brandKey.key }))).toBe('200');
    });

    it('lets an owner remove another owner with revoke_credentials', async () => {
      const f = fixture();
      const owner = await newCreator(f, 'owner');
      const response = await removalApi(f, f.owner.token).remove(owner.user.id, '?revoke_credentials=true');
      expect(response.statusCode).toBe(200);
      expect(idsOf(response)).toEqual(idsMadeBy(owner));
    });
  });

  describe('workspace boundaries', () => {
    it("answers 404 member_not_found to an owner who names this workspace's member under their own workspace, and revokes nothing", async () => {
      const f = fixture();
      const creator = await newCreator(f);
      for (const route of routes(f.otherWorkspaceId, creator.user.id))
        await refused(f, () => call(f, f.otherOwner.token, route.method, route.url), '404 member_not_found');
      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
    });

    it("answers 403 workspace_forbidden to another workspace's owner on this workspace's routes, leaking nothing", async () => {
      const f = fixture();
      const creator = await newCreator(f);
      const responses = await unchanged(f, () =>
        callEach(f, f.otherOwner.token, routes(f.workspaceId, creator.user.id)),
      );
      expect(responses.map(outcome)).toEqual(['403 workspace_forbidden', '403 workspace_forbidden']);
      for (const response of responses) expect(response.body).not.toContain(creator.brandKey.prefix);
    });

    it('revokes only what the member made in the workspace they leave: their keys and endpoints in another workspace keep working', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      await f.store.workspaces.addMember({
        workspaceId: f.otherWorkspaceId,
        userId: creator.user.id,
        role: 'admin',
        createdAt: new Date(f.clock.now()).toISOString(),
      });
      const elsewhere = await call(f, creator.token, 'POST', keysUrl(f, 'brand-keys', f.otherWorkspaceId), {
        body: { name: 'their key elsewhere' },
      });
      expect(elsewhere.statusCode).toBe(201);
      const webhook = await newWebhook(f, {}, creator.token, f.otherWorkspaceId);

      const response = await removalApi(f, f.owner.token).remove(creator.user.id, '?revoke_credentials=true');
      expect(idsOf(response)).toEqual(idsMadeBy(creator));

      const key = elsewhere.json<{ key: string }>().key;
      expect(outcome(await readContext(f.app, f.otherWorkspaceId, { key }))).toBe('200');
      const theirs = await webhooksApi(f, f.otherOwner.token, f.otherWorkspaceId).get(webhook.id);
      expect(theirs.json()).toMatchObject({ enabled: true });
      expect(await roleOf(f, creator.user.id, f.otherWorkspaceId, f.otherOwner.token)).toBe('admin');
    });

    it('locks the removed member out at once: they cannot list or revoke anything in the workspace any more', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      expect(outcome(await removalApi(f, f.owner.token).remove(creator.user.id))).toBe('204');
      const responses = await unchanged(f, () =>
        callEach(f, creator.token, [
          ...routes(f.workspaceId, f.admin.user.id),
          { method: 'DELETE', url: `${keysUrl(f, 'brand-keys')}/${creator.brandKey.id}` },
        ]),
      );
      expect(responses.map(outcome)).toEqual(Array(3).fill('403 workspace_forbidden'));
    });
  });

  describe('credentials', () => {
    it('answers 401 missing_token without credentials, and 403 to the workspace’s own keys, on both routes', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      const all = routes(f.workspaceId, creator.user.id);
      const answers = async (credential: string | undefined) =>
        (await unchanged(f, () => callEach(f, credential, all))).map(outcome);
      expect(await answers(undefined)).toEqual(['401 missing_token', '401 missing_token']);
      expect(await answers(f.apiKey)).toEqual(['403 api_key_not_allowed', '403 api_key_not_allowed']);
      expect(await answers(f.brandKey)).toEqual(['403 brand_key_not_allowed', '403 brand_key_not_allowed']);
      // Not even a key of the member's own: a key acts for the workspace, never for the person who made it.
      expect(await answers(creator.brandKey.key)).toEqual([
        '403 brand_key_not_allowed',
        '403 brand_key_not_allowed',
      ]);
    });
  });
});
