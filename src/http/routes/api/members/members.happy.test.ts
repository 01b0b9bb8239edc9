import { describe, expect, it } from 'vitest';
import { findOrCreateUser } from '../../../../services/accounts/workspaces.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { addUser } from '#test/support/users.js';
import { auditLog, isoNow, outcome, useFixture } from '#test/support/http-fixture.js';
import { DAY_MS } from '#test/support/clock.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import {
  type Member,
  membersApi,
  membersOf,
  newEmail,
  ownedWorkspace,
  roleOf,
  signIn,
  TEMPORARY,
} from '#test/support/fixtures/members.js';

describeEachBackend('Members API: the happy paths', (backend) => {
  const fixture = useFixture(backend);

  describe('listing', () => {
    it('shows every role the same list of members, each with email, role, the time they joined and no pending invite', async () => {
      const f = fixture();
      const [owners, admins, members] = await Promise.all(
        [f.owner, f.admin, f.member].map((caller) => membersOf(f, f.workspaceId, caller.token)),
      );
      expect(owners).toEqual(
        expect.arrayContaining(
          (['owner', 'admin', 'member'] as const).map((role) => ({
            user_id: f[role].user.id,
            email: f[role].user.email,
            role,
            created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
            invite: null,
          })),
        ),
      );
      expect(admins).toEqual(owners);
      expect(members).toEqual(owners);
    });
  });

  describe('adding', () => {
    it('lets an owner add an owner and an admin: 201 with the member and their invite, who then appears in the list and the audit log', async () => {
      const f = fixture();
      f.clock.advance(MINUTE_MS);
      const api = membersApi(f, f.owner.token);
      for (const role of ['owner', 'admin'] as const) {
        const email = newEmail();
        const response = await api.add({ email, role });
        expect(response.statusCode).toBe(201);
        const added = response.json<Member>();
        const invite = {
          sent_at: isoNow(f),
          expires_at: new Date(f.clock.now() + 7 * DAY_MS).toISOString(),
          delivery: 'queued',
          delivery_detail: null,
        };
        expect(added).toEqual({
          user_id: expect.stringMatching(/^usr_/) as string,
          email,
          role,
          created_at: isoNow(f),
          invite,
          temporary_password_set: false,
        });
        expect(await membersOf(f)).toContainEqual({
          user_id: added.user_id,
          email,
          role,
          created_at: isoNow(f),
          invite,
        });
        const event = (await auditLog(f)).find(
          (candidate) => candidate.action === 'member.added' && candidate.target.id === added.user_id,
        );
        expect(event).toMatchObject({
          actor: { type: 'user', id: f.owner.user.id },
          target: { type: 'user', id: added.user_id },
          details: { email, role, invited: true },
        });
      }
    });

    it('lets an admin add admins and members', async () => {
      const f = fixture();
      const api = membersApi(f, f.admin.token);
      for (const role of ['admin', 'member'] as const) {
        const email = newEmail();
        expect(outcome(await api.add({ email, role }))).toBe('201');
        expect((await membersOf(f)).find((member) => member.email === email)?.role).toBe(role);
      }
    });

    it('adds the existing account of an email written in another case or with spaces, without a second account', async () => {
      const f = fixture();
      const email = newEmail();
      const existing = await findOrCreateUser(f.deps, email);
      const response = await membersApi(f, f.owner.token).add({
        email: `  ${email.toUpperCase()} `,
        role: 'member',
      });
      expect(response.statusCode).toBe(201);
      expect(response.json<Member>()).toMatchObject({ user_id: existing.id, email });
      const users = (await snapshotTables(f.database.config)).users ?? [];
      expect(JSON.stringify(users).split(email)).toHaveLength(2);
    });

    it('creates a new account with the temporary password, which then signs in; the answer and the audit log never hold it', async () => {
      const f = fixture();
      const email = newEmail();
      const response = await membersApi(f, f.owner.token).add({ email, role: 'member', password: TEMPORARY });
      expect(response.statusCode).toBe(201);
      expect(response.json()).toEqual({
        user_id: expect.stringMatching(/^usr_/) as string,
        email,
        role: 'member',
        created_at: isoNow(f),
        invite: null,
        temporary_password_set: true,
      });
      expect(response.body).not.toContain(TEMPORARY);

      const signedIn = await signIn(f, email, TEMPORARY);
      expect(signedIn.statusCode).toBe(200);

      const added = (await auditLog(f)).find(
        (event) => event.action === 'member.added' && event.details.email === email,
      );
      expect(added?.details).toEqual({ email, role: 'member', temporary_password: true });
      expect(JSON.stringify(await snapshotTables(f.database.config))).not.toContain(TEMPORARY);
      expect(f.logs.join('\n')).not.toContain(TEMPORARY);
    });

    it('sets the temporary password of an existing account that has none yet (an admin adding a member)', async () => {
      const f = fixture();
      const email = newEmail();
      // An account without a password, as an earlier "add member" without one leaves it.
      await findOrCreateUser(f.deps, email);
      const response = await membersApi(f, f.admin.token).add({ email, role: 'member', password: TEMPORARY });
      expect(response.statusCode).toBe(201);
      expect(response.json<{ temporary_password_set: boolean }>().temporary_password_set).toBe(true);
      expect((await signIn(f, email, TEMPORARY)).statusCode).toBe(200);
    });

    it('adds an account without a password as before when none is given', async () => {
      const f = fixture();
      const email = newEmail();
      const response = await membersApi(f, f.owner.token).add({ email, role: 'member' });
      expect(response.statusCode).toBe(201);
      expect(response.json<{ temporary_password_set: boolean }>().temporary_password_set).toBe(false);
      expect((await signIn(f, email, TEMPORARY)).statusCode).toBe(401);
    });
  });

  describe('removing', () => {
    it('lets an owner remove another owner while one remains: 204, gone from the list, in the audit log, and locked out', async () => {
      const f = fixture();
      const second = await addUser(f, { workspaceId: f.workspaceId, role: 'owner' });
      const response = await membersApi(f, f.owner.token).remove(second.user.id);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(await roleOf(f, second.user.id)).toBeUndefined();
      expect(await roleOf(f, f.owner.user.id)).toBe('owner');
      const event = (await auditLog(f)).find(
        (candidate) => candidate.action === 'member.removed' && candidate.target.id === second.user.id,
      );
      expect(event).toMatchObject({
        actor: { type: 'user', id: f.owner.user.id },
        target: { type: 'user', id: second.user.id },
        details: { email: second.user.email, role: 'owner' },
      });
      // the removed owner's session reaches the workspace no more
      expect(outcome(await membersApi(f, second.token).list())).toBe('403 workspace_forbidden');
    });

    it('lets an owner leave a workspace that has another owner', async () => {
      const f = fixture();
      const { workspaceId, owner } = await ownedWorkspace(f);
      const second = await addUser(f, { workspaceId, role: 'owner' });
      expect(outcome(await membersApi(f, owner.token, workspaceId).remove(owner.user.id))).toBe('204');
      expect(await membersOf(f, workspaceId, second.token)).toEqual([
        expect.objectContaining({ user_id: second.user.id, role: 'owner' }),
      ]);
    });

    it('lets an admin remove admins and members, themselves included', async () => {
      const f = fixture();
      const admin = await addUser(f, { workspaceId: f.workspaceId, role: 'admin' });
      const others = await Promise.all(
        (['admin', 'member'] as const).map((role) => addUser(f, { workspaceId: f.workspaceId, role })),
      );
      const api = membersApi(f, admin.token);
      for (const { user } of others) expect(outcome(await api.remove(user.id))).toBe('204');
      expect(outcome(await api.remove(admin.user.id))).toBe('204');
      const remaining = (await membersOf(f)).map((member) => member.user_id);
      for (const { user } of [admin, ...others]) expect(remaining).not.toContain(user.id);
    });

    it('changes a role by removing the member and adding them again', async () => {
      const f = fixture();
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      const api = membersApi(f, f.owner.token);
      expect(outcome(await api.remove(user.id))).toBe('204');
      const again = await api.add({ email: user.email, role: 'admin' });
      expect(again.statusCode).toBe(201);
      expect(again.json<Member>()).toMatchObject({ user_id: user.id, role: 'admin' });
      expect(await roleOf(f, user.id)).toBe('admin');
    });
  });
});
