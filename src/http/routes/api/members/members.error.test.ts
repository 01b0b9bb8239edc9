import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { findOrCreateUser } from '../../../../services/accounts/workspaces.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { addUser } from '#test/support/users.js';
import { outcome, problemOf, refused, useFixture } from '#test/support/http-fixture.js';
import {
  membersApi,
  membersOf,
  newEmail,
  ownedWorkspace,
  roleOf,
  signIn,
  TEMPORARY,
} from '#test/support/fixtures/members.js';
import { mistype } from '#test/support/mistype.js';

/** Invalid bodies of POST …/members, each with exactly the fields the 400 must name. */
const INVALID_ADD: { case: string; body: unknown; fields: string[] }[] = [
  { case: 'an empty body', body: {}, fields: ['email', 'role'] },
  { case: 'no role', body: { email: 'someone@members.example' }, fields: ['role'] },
  { case: 'an email that is a number', body: { email: 5, role: 'member' }, fields: ['email'] },
  { case: 'a role that is null', body: { email: 'someone@members.example', role: null }, fields: ['role'] },
  {
    case: 'an unknown role',
    body: { email: 'someone@members.example', role: 'superuser' },
    fields: ['role'],
  },
  {
    case: 'a password that is a number',
    body: { email: 'someone@members.example', role: 'member', password: 123456789012 },
    fields: ['password'],
  },
  {
    case: 'an unknown field user_id',
    body: { email: 'someone@members.example', role: 'member', user_id: 'usr_x' },
    fields: ['user_id'],
  },
  {
    case: 'a body that is an array',
    body: [{ email: 'someone@members.example', role: 'member' }],
    fields: [''],
  },
  {
    case: 'an email that is no email address',
    body: { email: 'not an email', role: 'member' },
    fields: ['email'],
  },
];

/** The fields a 400 names, in order. */
function fieldsOf(response: LightMyRequestResponse): string[] {
  return (problemOf(response).errors ?? []).map((issue) => issue.field).sort();
}

describeEachBackend('Members API: errors', (backend) => {
  const fixture = useFixture(backend);

  describe('the last owner', () => {
    it('answers 409 last_owner to the only owner removing themselves, and changes nothing', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownedWorkspace(f);
      const response = await refused(
        f,
        () => membersApi(f, owner.token, workspaceId).remove(owner.user.id),
        '409 last_owner',
      );
      expect(problemOf(response).resolution).toBe('Add another owner before removing this one.');
      expect(await roleOf(f, owner.user.id, workspaceId, owner.token)).toBe('owner');
    });

    it('keeps the last of two owners once the other is gone', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownedWorkspace(f);
      const second = await addUser(f, { workspaceId, role: 'owner' });
      const api = membersApi(f, owner.token, workspaceId);
      expect(outcome(await api.remove(second.user.id))).toBe('204');
      await refused(f, () => api.remove(owner.user.id), '409 last_owner');
    });

    it('leaves a workspace one owner when its two owners remove each other at once', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownedWorkspace(f);
      const coOwner = await addUser(f, { workspaceId, role: 'owner' });
      const [byOwner, byCoOwner] = await Promise.all([
        membersApi(f, owner.token, workspaceId).remove(coOwner.user.id),
        membersApi(f, coOwner.token, workspaceId).remove(owner.user.id),
      ]);
      expect([byOwner, byCoOwner].filter((response) => response.statusCode === 204)).toHaveLength(1);
      const [remaining, turnedAway] = byOwner.statusCode === 204 ? [owner, byCoOwner] : [coOwner, byOwner];
      // the later removal finds its target the last owner, or (once the earlier one has committed) finds
      // its caller no member at all
      expect(['409 last_owner', '403 workspace_forbidden']).toContain(outcome(turnedAway));
      expect(await membersOf(f, workspaceId, remaining.token)).toEqual([
        expect.objectContaining({ user_id: remaining.user.id, role: 'owner' }),
      ]);
    });

    it('has no way to demote the only owner: adding them again as an admin answers 409 member_exists', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownedWorkspace(f);
      await refused(
        f,
        () => membersApi(f, owner.token, workspaceId).add({ email: owner.user.email, role: 'admin' }),
        '409 member_exists',
      );
      expect(await roleOf(f, owner.user.id, workspaceId, owner.token)).toBe('owner');
    });
  });

  describe('members that exist, and members that do not', () => {
    it('answers 409 member_exists to adding a member twice, in any case of the email, and keeps their role', async () => {
      const f = fixture();
      const api = membersApi(f, f.owner.token);
      for (const email of [f.member.user.email, ` ${f.member.user.email.toUpperCase()}`]) {
        const response = await refused(f, () => api.add({ email, role: 'admin' }), '409 member_exists');
        expect(problemOf(response).detail).toBe(
          `${f.member.user.email} is already a member of this workspace.`,
        );
      }
      expect(await roleOf(f, f.member.user.id)).toBe('member');
    });

    it('answers 409 member_exists before looking at a temporary password, and sets none', async () => {
      const f = fixture();
      await refused(
        f,
        () =>
          membersApi(f, f.owner.token).add({
            email: f.admin.user.email,
            role: 'member',
            password: TEMPORARY,
          }),
        '409 member_exists',
      );
      expect((await signIn(f, f.admin.user.email, TEMPORARY)).statusCode).toBe(401);
    });

    it.each([
      ['a mistyped user id', (id: string) => mistype(id)],
      ['a user id of another case', (id: string) => id.toUpperCase()],
      ['a user id that is no id at all', () => 'nobody'],
    ])('answers 404 member_not_found to removing %s, and changes nothing', async (_label, mistype) => {
      const f = fixture();
      const userId = mistype(f.member.user.id);
      const response = await refused(
        f,
        () => membersApi(f, f.owner.token).remove(userId),
        '404 member_not_found',
      );
      expect(problemOf(response).detail).toBe(`User ${userId} is not a member of this workspace.`);
    });

    it('answers 404 member_not_found to removing an account that is no member here, and changes nothing', async () => {
      const f = fixture();
      const stranger = await findOrCreateUser(f.deps, newEmail());
      const api = membersApi(f, f.owner.token);
      await refused(f, () => api.remove(stranger.id), '404 member_not_found');
      // nor a second time, after the member was removed
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      expect(outcome(await api.remove(user.id))).toBe('204');
      await refused(f, () => api.remove(user.id), '404 member_not_found');
    });
  });

  describe('temporary passwords', () => {
    it("never replaces an existing account's password: 409 account_has_password, and nothing changes", async () => {
      const f = fixture();
      const email = newEmail();
      const own = 'the password this person chose themselves';
      await findOrCreateUser(f.deps, email, own);
      const before = await snapshotTables(f.database.config);

      const response = await membersApi(f, f.owner.token).add({ email, role: 'admin', password: TEMPORARY });
      expect(response.statusCode).toBe(409);
      const problem = problemOf(response);
      expect(problem.code).toBe('account_has_password');
      expect(problem.detail).toContain(email);
      expect(problem.resolution).toMatch(/without a temporary password/);
      expect(response.body).not.toContain(TEMPORARY);
      expect(await snapshotTables(f.database.config)).toEqual(before);
      expect((await signIn(f, email, own)).statusCode).toBe(200);
      expect((await signIn(f, email, TEMPORARY)).statusCode).toBe(401);

      // Without a password the same account is added, and keeps its own.
      const plain = await membersApi(f, f.owner.token).add({ email, role: 'admin' });
      expect(plain.statusCode).toBe(201);
      expect(plain.json<{ temporary_password_set: boolean }>().temporary_password_set).toBe(false);
      expect((await signIn(f, email, own)).statusCode).toBe(200);
    });

    it('refuses a temporary password shorter than 12 characters with 400 naming the field, and creates no account', async () => {
      const f = fixture();
      const email = newEmail();
      const before = await snapshotTables(f.database.config);
      const response = await membersApi(f, f.owner.token).add({ email, role: 'member', password: 'short' });
      expect(response.statusCode).toBe(400);
      const problem = problemOf(response);
      expect(problem.code).toBe('invalid_request');
      expect(problem.errors).toEqual([{ field: 'password', message: 'must be at least 12 characters' }]);
      expect(await snapshotTables(f.database.config)).toEqual(before);
    });
  });

  describe('invalid input', () => {
    for (const invalid of INVALID_ADD) {
      it(`refuses to add a member with ${invalid.case}: 400 naming ${invalid.fields.map((field) => `"${field}"`).join(', ')}, and changes nothing`, async () => {
        const f = fixture();
        const response = await refused(
          f,
          () => membersApi(f, f.owner.token).add(invalid.body),
          '400 invalid_request',
        );
        expect(fieldsOf(response)).toEqual([...invalid.fields].sort());
      });
    }

    it('answers 414 uri_too_long to a user id over 100 characters, and changes nothing', async () => {
      const f = fixture();
      const response = await refused(
        f,
        () => membersApi(f, f.owner.token).remove(`usr_${'x'.repeat(97)}`),
        '414 uri_too_long',
      );
      expect(problemOf(response).detail).toBe('A path segment of the URL is longer than 100 characters.');
    });

    it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON', async () => {
      const f = fixture();
      const api = membersApi(f, f.owner.token);
      await refused(f, () => api.add(undefined, { rawBody: '{"email": ' }), '400 invalid_json');
      const form = await refused(
        f,
        () =>
          api.add(undefined, {
            rawBody: 'email=a%40b.example&role=owner',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }),
        '415 unsupported_media_type',
      );
      expect(problemOf(form).status).toBe(415);
    });
  });
});
