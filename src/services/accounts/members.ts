import type { AddedMember, Member, MemberCredentials, MemberInvite } from '../../contract/members.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { parseInput, passwordSchema, roleSchema } from '../../core/inputs.js';
import { canManageMember, isOnlyOwner, type Role } from '../../core/roles.js';
import { type AccountMail, queueInvite } from './account-email.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';
import { memberCredentials, revokeMemberCredentials } from './member-credentials.js';
import { hashPassword } from '../auth/passwords.js';
import { findOrCreateUser, requireWorkspace } from './workspaces.js';

export async function listMembers(
  deps: Deps<'workspaces' | 'accountTokens'>,
  workspaceId: string,
): Promise<Member[]> {
  const [members, invites] = await Promise.all([
    deps.store.workspaces.listMembers(workspaceId),
    deps.store.accountTokens.pendingInvites(workspaceId),
  ]);
  const inviteOf = new Map(invites.map((invite) => [invite.userId, invite]));
  return members.map((member) => {
    const invite = inviteOf.get(member.userId);
    return {
      user_id: member.userId,
      email: member.email,
      role: member.role,
      created_at: member.createdAt,
      invite: invite
        ? {
            sent_at: invite.createdAt,
            expires_at: invite.expiresAt,
            delivery: invite.delivery?.status ?? null,
            delivery_detail: invite.delivery?.detail ?? null,
          }
        : null,
    };
  });
}

function refuseUnlessManages(actorRole: Role, target: Role): void {
  if (!canManageMember(actorRole, target)) {
    throw new AppError('insufficient_role', { reason: 'manage_member', role: actorRole, memberRole: target });
  }
}

/**
 * Adds the account with this email (created if it does not exist yet) to the workspace. An account without a
 * password is invited: an email with a link to choose one (docs/account-email.md "Account email"), unless a temporary
 * `password` is given. That is set only on an account that has none: a new one, or one added earlier
 * without a password; an account with its own password answers 409 `account_has_password` and nothing
 * changes. The audit event says that a temporary password was set, never what it is.
 */
export async function addMember(
  deps: Deps<'users' | 'workspaces' | 'audit' | 'accountTokens' | 'email' | EventRepositories>,
  mail: AccountMail,
  actor: Actor,
  actorRole: Role,
  workspaceId: string,
  input: { email: string; role: unknown; password?: string | undefined },
): Promise<AddedMember> {
  const role = parseInput(roleSchema, input.role, 'role');
  refuseUnlessManages(actorRole, role);
  const passwordHash =
    input.password === undefined
      ? undefined
      : await hashPassword(parseInput(passwordSchema, input.password, 'password'));
  const createdAt = isoAt(deps.clock);
  return deps.store.transaction(async (tx) => {
    // Inside the transaction: an account created here is gone again if the member cannot be added.
    const user = await findOrCreateUser({ store: tx, clock: deps.clock }, input.email);
    if (await tx.workspaces.getMember(workspaceId, user.id)) {
      throw new AppError('member_exists', { email: user.email });
    }
    if (passwordHash !== undefined) {
      if (user.passwordHash !== null) {
        throw new AppError('account_has_password', { email: user.email });
      }
      await tx.users.setPasswordHash(user.id, passwordHash);
    }
    await tx.workspaces.addMember({ workspaceId, userId: user.id, role, createdAt });
    const invite =
      passwordHash === undefined && user.passwordHash === null
        ? await queueInvite(tx, mail, createdAt, {
            user,
            workspace: await requireWorkspace({ store: tx, clock: deps.clock }, workspaceId),
            invitedBy: actor,
          })
        : null;
    await recordAudit(tx, actor, createdAt, {
      workspaceId,
      action: 'member.added',
      targetType: 'user',
      targetId: user.id,
      details: {
        email: user.email,
        role,
        ...(passwordHash !== undefined && { temporary_password: true }),
        ...(invite !== null && { invited: true }),
      },
    });
    await publishEvent(tx, createdAt, {
      workspaceId,
      type: 'member.added',
      data: { member: { user_id: user.id, email: user.email, role } },
    });
    return {
      user_id: user.id,
      email: user.email,
      role,
      created_at: createdAt,
      invite,
      temporary_password_set: passwordHash !== undefined,
    };
  });
}

/**
 * Sends a member whose account still has no password a new invite, ending the links sent before; 409
 * `invite_not_needed` once the account has a password. Recorded as `member.invited`.
 */
export async function resendInvite(
  deps: Deps<'users' | 'workspaces' | 'audit' | 'accountTokens' | 'email'>,
  mail: AccountMail,
  actor: Actor,
  actorRole: Role,
  workspaceId: string,
  userId: string,
): Promise<MemberInvite> {
  const at = isoAt(deps.clock);
  return deps.store.transaction(async (tx) => {
    const member = await tx.workspaces.getMember(workspaceId, userId);
    const user = member && (await tx.users.get(userId));
    if (!member || !user) throw new AppError('member_not_found', { userId });
    refuseUnlessManages(actorRole, member.role);
    if (user.passwordHash !== null) throw new AppError('invite_not_needed', { email: user.email });
    const workspace = await requireWorkspace({ store: tx, clock: deps.clock }, workspaceId);
    const invite = await queueInvite(tx, mail, at, { user, workspace, invitedBy: actor });
    await recordAudit(tx, actor, at, {
      workspaceId,
      action: 'member.invited',
      targetType: 'user',
      targetId: userId,
      details: { email: user.email, expires_at: invite.expires_at },
    });
    return invite;
  });
}

/**
 * What a member created that still works (docs/management-api.md "Management API", removing a member): what removing them with
 * `revoke_credentials` would revoke and disable. Asked by whoever may remove them: not an admin of an owner.
 */
export async function listMemberCredentials(
  deps: Deps<'workspaces' | 'keys' | 'webhooks'>,
  actorRole: Role,
  workspaceId: string,
  userId: string,
): Promise<MemberCredentials> {
  const member = await deps.store.workspaces.getMember(workspaceId, userId);
  if (!member) throw new AppError('member_not_found', { userId });
  refuseUnlessManages(actorRole, member.role);
  return memberCredentials(deps.store, workspaceId, userId, deps.clock.now());
}

/**
 * Removes the member. Their keys and webhook endpoints belong to the workspace and keep working, unless
 * `revokeCredentials`: then, in the same transaction, their active keys are revoked and their enabled
 * endpoints disabled (src/services/accounts/member-credentials.ts), and what was is returned.
 */
export async function removeMember(
  deps: Deps<'workspaces' | 'audit' | 'accountTokens' | 'keys' | EventRepositories>,
  actor: Actor,
  actorRole: Role,
  workspaceId: string,
  userId: string,
  options: { revokeCredentials?: boolean } = {},
): Promise<MemberCredentials | undefined> {
  const at = isoAt(deps.clock);
  return deps.store.transaction(async (tx) => {
    // Locked: two owners removing each other at once must not both see a second owner.
    const members = await tx.workspaces.listMembers(workspaceId, { lock: true });
    const member = members.find((candidate) => candidate.userId === userId);
    if (!member) throw new AppError('member_not_found', { userId });
    refuseUnlessManages(actorRole, member.role);
    if (isOnlyOwner(member, members)) throw new AppError('last_owner');
    await tx.workspaces.removeMember(workspaceId, userId);
    // An invite into the workspace no longer lets the removed member choose a password.
    await tx.accountTokens.expireInvites(userId, workspaceId, at, 'expired');
    const revoked =
      options.revokeCredentials === true
        ? await revokeMemberCredentials(tx, actor, at, workspaceId, userId)
        : undefined;
    await recordAudit(tx, actor, at, {
      workspaceId,
      action: 'member.removed',
      targetType: 'user',
      targetId: userId,
      details: {
        email: member.email,
        role: member.role,
        ...(revoked && {
          revoked_brand_keys: revoked.brand_keys.length,
          revoked_api_keys: revoked.api_keys.length,
          disabled_webhooks: revoked.webhooks.length,
        }),
      },
    });
    await publishEvent(tx, at, {
      workspaceId,
      type: 'member.removed',
      data: { member: { user_id: userId, email: member.email, role: member.role } },
    });
    return revoked;
  });
}
