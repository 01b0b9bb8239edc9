import { isoAt } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { parseInput, roleSchema } from '../core/inputs.js';
import { canManageMember, type Role } from '../core/roles.js';
import { type Actor, recordAudit } from './audit.js';
import type { Deps } from './deps.js';
import { findOrCreateUser } from './workspaces.js';

export interface MemberView {
  user_id: string;
  email: string;
  role: Role;
  created_at: string;
}

export async function listMembers(deps: Deps, workspaceId: string): Promise<MemberView[]> {
  return (await deps.store.listMembers(workspaceId)).map((member) => ({
    user_id: member.userId,
    email: member.email,
    role: member.role,
    created_at: member.createdAt,
  }));
}

function refuseUnlessManages(actorRole: Role, target: Role): void {
  if (!canManageMember(actorRole, target)) {
    throw new AppError('insufficient_role', `An ${actorRole} cannot add or remove an ${target}.`);
  }
}

/**
 * Adds the account with this email (created without a password if it does not exist yet: the person signs
 * in through the identity provider, or an operator sets a password) to the workspace.
 */
export async function addMember(
  deps: Deps,
  actor: Actor,
  actorRole: Role,
  workspaceId: string,
  input: { email: string; role: unknown },
): Promise<MemberView> {
  const role = parseInput(roleSchema, input.role, 'role');
  refuseUnlessManages(actorRole, role);
  const user = await findOrCreateUser(deps, input.email);
  const createdAt = isoAt(deps.clock);
  await deps.store.transaction(async (store) => {
    if (await store.getMembership(workspaceId, user.id)) {
      throw new AppError('member_exists', `${user.email} is already a member of this workspace.`);
    }
    await store.addMember({ workspaceId, userId: user.id, role, createdAt });
    await recordAudit(store, actor, createdAt, {
      workspaceId,
      action: 'member.added',
      targetType: 'user',
      targetId: user.id,
      details: { email: user.email, role },
    });
  });
  return { user_id: user.id, email: user.email, role, created_at: createdAt };
}

export async function removeMember(
  deps: Deps,
  actor: Actor,
  actorRole: Role,
  workspaceId: string,
  userId: string,
): Promise<void> {
  const at = isoAt(deps.clock);
  await deps.store.transaction(async (store) => {
    const members = await store.listMembers(workspaceId);
    const member = members.find((candidate) => candidate.userId === userId);
    if (!member) throw new AppError('member_not_found', `User ${userId} is not a member of this workspace.`);
    refuseUnlessManages(actorRole, member.role);
    if (member.role === 'owner' && members.filter((candidate) => candidate.role === 'owner').length === 1) {
      throw new AppError('last_owner', 'This is the workspace’s only owner.');
    }
    await store.removeMember(workspaceId, userId);
    await recordAudit(store, actor, at, {
      workspaceId,
      action: 'member.removed',
      targetType: 'user',
      targetId: userId,
      details: { email: member.email, role: member.role },
    });
  });
}
