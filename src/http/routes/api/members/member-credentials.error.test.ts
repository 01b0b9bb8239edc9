import { describe, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { keysUrl } from '#test/support/fixtures/keys.js';
import { newCreator, removalApi } from '#test/support/fixtures/member-credentials.js';
import { ownedWorkspace, roleOf } from '#test/support/fixtures/members.js';
import { call, outcome, problemOf, refused, useFixture } from '#test/support/http-fixture.js';

describeEachBackend('Removing a member, and what they created: errors', (backend) => {
  const fixture = useFixture(backend);

  describe('revoke_credentials', () => {
    it('refuses a value other than true or false (400 naming revoke_credentials), and removes and revokes nothing', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      for (const value of ['yes', '1', 'TRUE', '']) {
        const response = await refused(
          f,
          () => removalApi(f, f.owner.token).remove(creator.user.id, `?revoke_credentials=${value}`),
          '400 invalid_request',
        );
        expect(problemOf(response).errors?.map((issue) => issue.field)).toEqual(['revoke_credentials']);
      }
      expect(await roleOf(f, creator.user.id)).toBe('admin');
    });

    it('refuses a misspelt option rather than ignoring it (400), and removes and revokes nothing', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      const response = await refused(
        f,
        () => removalApi(f, f.owner.token).remove(creator.user.id, '?revoke_credential=true'),
        '400 invalid_request',
      );
      expect(problemOf(response).errors?.map((issue) => issue.field)).toEqual(['revoke_credential']);
    });

    it('refuses the option sent in a JSON body (400 saying it goes in the query), so that no key is left working by mistake', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      for (const body of [{ revoke_credentials: true }, { revoke_credentials: false }, ['x']]) {
        const response = await refused(
          f,
          () => removalApi(f, f.owner.token).remove(creator.user.id, '', { body }),
          '400 invalid_request',
        );
        expect(problemOf(response).detail).toBe(
          'Unexpected body: body is not read when removing a member: send ?revoke_credentials=true in the query string instead.',
        );
      }
      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
    });
  });

  describe('members that cannot be removed', () => {
    it('answers 404 member_not_found for an account that is no member, on the list and on the removal', async () => {
      const f = fixture();
      const api = removalApi(f, f.owner.token);
      await refused(f, () => api.credentials('usr_NoSuchMember000000'), '404 member_not_found');
      await refused(
        f,
        () => api.remove('usr_NoSuchMember000000', '?revoke_credentials=true'),
        '404 member_not_found',
      );
    });

    it('answers 404 member_not_found once the member is gone: a second removal revokes nothing more', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      const api = removalApi(f, f.owner.token);
      expect(outcome(await api.remove(creator.user.id))).toBe('204');
      await refused(f, () => api.remove(creator.user.id, '?revoke_credentials=true'), '404 member_not_found');
      await refused(f, () => api.credentials(creator.user.id), '404 member_not_found');
      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
    });

    it('answers 409 last_owner to the only owner removing themselves with revoke_credentials, and revokes nothing', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownedWorkspace(f);
      const created = await call(f, owner.token, 'POST', keysUrl(f, 'brand-keys', workspaceId), {
        body: { name: 'solo key' },
      });
      expect(created.statusCode).toBe(201);
      await refused(
        f,
        () => removalApi(f, owner.token, workspaceId).remove(owner.user.id, '?revoke_credentials=true'),
        '409 last_owner',
      );
      const key = created.json<{ key: string }>().key;
      expect(outcome(await readContext(f.app, workspaceId, { key }))).toBe('200');
    });
  });
});
