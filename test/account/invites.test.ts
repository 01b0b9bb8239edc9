import { describe, expect, it } from 'vitest';
import type { IssuedSession } from '../../src/contract/session.js';
import { DEFAULT_EMAIL_FROM } from '../../src/config.js';
import { setPassword } from '../../src/services/accounts/workspaces.js';
import { DAY_MS } from '#test/support/clock.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { describeEachBackend } from '#test/support/databases.js';
import {
  acceptInvite,
  bounceEmailsTo,
  emailsTo,
  expectLinkKeptSecret,
  lastTokenTo,
  later,
  linkIn,
  type MemberInvite,
  NEW_PASSWORD,
  resendInvite,
  useAccountEmailFixture,
} from '#test/support/fixtures/account-email.js';
import {
  type Member,
  membersApi,
  membersOf,
  newEmail,
  signIn,
  TEMPORARY,
} from '#test/support/fixtures/members.js';
import {
  auditLog,
  call,
  type Fixture,
  isoNow,
  outcome,
  problemOf,
  refused,
  unchanged,
} from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';

/** Adds a new account to the fixture's workspace as its owner: the invite goes out. */
async function invite(f: Fixture, role: 'admin' | 'member' = 'member'): Promise<Member> {
  const response = await membersApi(f, f.owner.token).add({ email: newEmail(), role });
  expect(response.statusCode).toBe(201);
  return response.json<Member>();
}

async function memberView(f: Fixture, userId: string): Promise<Member | undefined> {
  return (await membersOf(f)).find((member) => member.user_id === userId);
}

describeEachBackend('Invites', (backend) => {
  const fixture = useAccountEmailFixture(backend);

  describe('adding a member without a password', () => {
    it('emails them an invite naming the workspace and who invited them, with a link valid for 7 days', async () => {
      const f = fixture();
      const member = await invite(f);
      const expiresAt = new Date(f.clock.now() + 7 * DAY_MS).toISOString();
      expect(member.invite).toEqual({
        sent_at: isoNow(f),
        expires_at: expiresAt,
        delivery: 'queued',
        delivery_detail: null,
      });

      const [email, ...more] = await emailsTo(f, member.email);
      expect(more).toEqual([]);
      expect(email).toMatchObject({
        workspaceId: f.workspaceId,
        source: 'account',
        from: DEFAULT_EMAIL_FROM,
        toHeader: [member.email],
        recipients: [member.email],
        subject: 'Join Acme Coffee on Brand Context',
        status: 'queued',
      });
      expect(email?.text).toContain(`${f.owner.user.email} added you to the workspace "Acme Coffee"`);
      expect(email?.text).toContain('until 27 November 2026 at 10:00 UTC');
      const { url, token } = linkIn(email);
      expect(url).toMatch(/^https:\/\/brand\.test\/accept-invite\?token=bci_[A-Za-z0-9_-]{43}$/);
      expect(email?.html).toContain(`<a href="${url}">`);
      expect(token).not.toBe('');
    });

    it('shows the pending invite in the members list until it is accepted', async () => {
      const f = fixture();
      const member = await invite(f);
      expect((await memberView(f, member.user_id))?.invite).toEqual(member.invite);
      expect(
        outcome(await acceptInvite(f, { token: await lastTokenTo(f, member.email), password: NEW_PASSWORD })),
      ).toBe('200');
      expect((await memberView(f, member.user_id))?.invite).toBeNull();
    });

    it('shows what became of the invite email: a bounce with the relay’s answer, not "sent"', async () => {
      const f = fixture();
      const member = await invite(f);
      const answer = '550 5.1.1 No such user';
      await bounceEmailsTo(f, member.email, answer);
      expect((await memberView(f, member.user_id))?.invite).toMatchObject({
        delivery: 'bounced',
        delivery_detail: answer,
      });
    });

    it('sends no invite with a temporary password, nor to an account that has a password', async () => {
      const f = fixture();
      const temporary = newEmail();
      const withTemporary = await membersApi(f, f.owner.token).add({
        email: temporary,
        role: 'member',
        password: TEMPORARY,
      });
      expect(withTemporary.json<Member>().invite).toBeNull();
      const own = await addUser(f, { password: 'a password of their own' });
      const withOwn = await membersApi(f, f.owner.token).add({ email: own.user.email, role: 'member' });
      expect(withOwn.json<Member>().invite).toBeNull();
      expect(await emailsTo(f, temporary)).toEqual([]);
      expect(await emailsTo(f, own.user.email)).toEqual([]);
    });

    it('queues nothing when the member cannot be added: the invite is part of the same transaction', async () => {
      const f = fixture();
      const member = await invite(f);
      await refused(
        f,
        () => membersApi(f, f.owner.token).add({ email: member.email, role: 'admin' }),
        '409 member_exists',
      );
      await refused(
        f,
        () => membersApi(f, f.admin.token).add({ email: newEmail(), role: 'owner' }),
        '403 insufficient_role',
      );
      expect(await emailsTo(f, member.email)).toHaveLength(1);
    });

    it('records that the member was invited, never the link', async () => {
      const f = fixture();
      const member = await invite(f);
      const added = (await auditLog(f)).find(
        (event) => event.action === 'member.added' && event.target.id === member.user_id,
      );
      expect(added?.details).toEqual({ email: member.email, role: 'member', invited: true });
    });
  });

  describe('accepting', () => {
    it('sets the password once and signs in, answering as POST /auth/v1/token does', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      const response = await acceptInvite(f, { token, password: NEW_PASSWORD });
      expect(response.statusCode).toBe(200);
      const session = response.json<IssuedSession>();
      expect(session).toEqual({
        access_token: expect.any(String) as string,
        token_type: 'bearer',
        expires_in: 3600,
      });
      expect(outcome(await call(f, session.access_token, 'GET', '/api/v1/workspaces'))).toBe('200');
      expect(outcome(await signIn(f, member.email, NEW_PASSWORD))).toBe('200');

      const accepted = (await auditLog(f)).find(
        (event) => event.action === 'member.invite_accepted' && event.target.id === member.user_id,
      );
      expect(accepted).toMatchObject({
        actor: { type: 'user', id: member.user_id },
        details: { email: member.email },
      });
    });

    it('refuses the link a second time with 400 link_invalid (used), and changes nothing', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      expect(outcome(await acceptInvite(f, { token, password: NEW_PASSWORD }))).toBe('200');
      const again = await refused(
        f,
        () => acceptInvite(f, { token, password: 'someone else’s password' }),
        '400 link_invalid',
      );
      expect(problemOf(again).detail).toBe('The link was already used: each link works once.');
      expect(outcome(await signIn(f, member.email, NEW_PASSWORD))).toBe('200');
    });

    it('lets only one of two uses at once set the password', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      const answers = await Promise.all(
        ['first password at once', 'second password at once'].map((password) =>
          acceptInvite(f, { token, password }),
        ),
      );
      expect(answers.map(outcome).sort()).toEqual(['200', '400 link_invalid']);
    });

    it('refuses a link older than 7 days with 400 link_invalid (expired), and changes nothing', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      const response = await later(f, 7 * DAY_MS, () =>
        refused(f, () => acceptInvite(f, { token, password: NEW_PASSWORD }), '400 link_invalid'),
      );
      expect(problemOf(response).detail).toBe('The link has expired.');
      expect(problemOf(response).resolution).toMatch(/new invite from a workspace owner or admin/);
    });

    it('refuses an unknown, a cut-short or a password reset token with 400 link_invalid (unknown)', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      for (const wrong of ['bci_nothing', token.slice(0, -1), `bcr_${token.slice(4)}`, '']) {
        const response = await refused(
          f,
          () => acceptInvite(f, { token: wrong, password: NEW_PASSWORD }),
          '400 link_invalid',
        );
        expect(problemOf(response).detail).toBe('The link is not valid: it may be mistyped or cut short.');
      }
    });

    it('refuses a short password with 400 invalid_request, and the link still works', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      const response = await refused(
        f,
        () => acceptInvite(f, { token, password: 'short' }),
        '400 invalid_request',
      );
      expect(problemOf(response).errors).toEqual([
        { field: 'password', message: 'must be at least 12 characters' },
      ]);
      await refused(f, () => acceptInvite(f, { token }), '400 invalid_request');
      expect(outcome(await acceptInvite(f, { token, password: NEW_PASSWORD }))).toBe('200');
    });

    it('refuses an invite once the account has a password from elsewhere: an old link cannot replace it', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      await setPassword(f.deps, member.email, 'set by the operator meanwhile');
      await refused(f, () => acceptInvite(f, { token, password: NEW_PASSWORD }), '400 link_invalid');
      expect(outcome(await signIn(f, member.email, 'set by the operator meanwhile'))).toBe('200');
    });

    it('ends the invite of a member who is removed before accepting it', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      expect(outcome(await membersApi(f, f.owner.token).remove(member.user_id))).toBe('204');
      const response = await refused(
        f,
        () => acceptInvite(f, { token, password: NEW_PASSWORD }),
        '400 link_invalid',
      );
      // Not "expired": the person should know the invitation was taken back, not ask for the same one again.
      expect(problemOf(response).detail).toBe(
        'This invitation was withdrawn: the account is no longer a member of the workspace.',
      );
      // Even after the 7 days an invite lasts.
      const later7 = await later(f, 7 * DAY_MS, () =>
        refused(f, () => acceptInvite(f, { token, password: NEW_PASSWORD }), '400 link_invalid'),
      );
      expect(problemOf(later7).detail).toMatch(/^This invitation was withdrawn/);
    });
  });

  describe('resending', () => {
    const resend = (f: Fixture, credential: string, userId: string) =>
      resendInvite(f, credential, f.workspaceId, userId);

    it('sends a new link with 202 and ends the earlier one; audited as member.invited', async () => {
      const f = fixture();
      const member = await invite(f);
      const first = await lastTokenTo(f, member.email);
      f.clock.advance(30 * MINUTE_MS);
      const response = await resend(f, f.admin.token, member.user_id);
      expect(response.statusCode).toBe(202);
      const expected: MemberInvite = {
        sent_at: isoNow(f),
        expires_at: new Date(f.clock.now() + 7 * DAY_MS).toISOString(),
        delivery: 'queued',
        delivery_detail: null,
      };
      expect(response.json()).toEqual(expected);
      expect((await memberView(f, member.user_id))?.invite).toEqual(expected);

      const emails = await emailsTo(f, member.email);
      expect(emails).toHaveLength(2);
      expect(emails[1]?.text).toContain(`${f.admin.user.email} added you`);
      const second = linkIn(emails[1]).token;
      expect(second).not.toBe(first);
      const replaced = await refused(
        f,
        () => acceptInvite(f, { token: first, password: NEW_PASSWORD }),
        '400 link_invalid',
      );
      expect(problemOf(replaced).detail).toBe('A newer link was sent; use the one in the latest email.');
      expect(outcome(await acceptInvite(f, { token: second, password: NEW_PASSWORD }))).toBe('200');

      const invited = (await auditLog(f)).find(
        (event) => event.action === 'member.invited' && event.target.id === member.user_id,
      );
      expect(invited).toMatchObject({
        actor: { type: 'user', id: f.admin.user.id },
        details: { email: member.email, expires_at: expected.expires_at },
      });
    });

    it('answers 409 invite_not_needed once the member has a password, and sends nothing', async () => {
      const f = fixture();
      const member = await invite(f);
      expect(
        outcome(await acceptInvite(f, { token: await lastTokenTo(f, member.email), password: NEW_PASSWORD })),
      ).toBe('200');
      const response = await refused(
        f,
        () => resend(f, f.owner.token, member.user_id),
        '409 invite_not_needed',
      );
      expect(problemOf(response).detail).toBe(
        `${member.email} has set a password already: there is nothing to invite them to.`,
      );
    });

    it('answers 404 member_not_found for an account that is no member here', async () => {
      const f = fixture();
      const outsider = await invite(f);
      await refused(
        f,
        () => resendInvite(f, f.otherOwner.token, f.otherWorkspaceId, outsider.user_id),
        '404 member_not_found',
      );
      await refused(f, () => resend(f, f.owner.token, 'usr_nobody'), '404 member_not_found');
    });

    it('lets only those who manage the member resend: members and admins for an owner get 403', async () => {
      const f = fixture();
      const member = await invite(f);
      const owner = await membersApi(f, f.owner.token).add({ email: newEmail(), role: 'owner' });
      const ownerId = owner.json<Member>().user_id;
      await unchanged(f, async () => {
        expect(outcome(await resend(f, f.member.token, member.user_id))).toBe('403 insufficient_role');
        expect(outcome(await resend(f, f.admin.token, ownerId))).toBe('403 insufficient_role');
        expect(outcome(await resend(f, f.otherOwner.token, member.user_id))).toBe('403 workspace_forbidden');
        expect(outcome(await resend(f, f.apiKey, member.user_id))).toBe('403 api_key_not_allowed');
        expect(
          outcome(
            await call(
              f,
              undefined,
              'POST',
              `/api/v1/workspaces/${f.workspaceId}/members/${member.user_id}/invite`,
            ),
          ),
        ).toBe('401 missing_token');
      });
    });
  });

  describe('secrets', () => {
    it('keeps no token in plaintext in any table or log line, and masks one that reaches a URL', async () => {
      const f = fixture();
      const member = await invite(f);
      const token = await lastTokenTo(f, member.email);
      await expectLinkKeptSecret(f, { token, page: '/accept-invite' }, () =>
        acceptInvite(f, { token, password: NEW_PASSWORD }),
      );
    });
  });
});
