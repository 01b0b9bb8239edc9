import type { CredentialCreator } from '../../contract/credential-creator.js';
import type { Deps } from '../shared/deps.js';

/**
 * Who created what a workspace lists (docs/management-api.md "Management API", removing a member): each user id with their
 * email, and whether they are still a member. One read of the members; an account that is no longer one is
 * looked up by itself (a listing names few of them). Null stays null: the operator, or no longer known.
 */
async function creatorsIn(
  deps: Deps<'workspaces' | 'users'>,
  workspaceId: string,
  userIds: readonly (string | null)[],
): Promise<(userId: string | null) => CredentialCreator | null> {
  const members = await deps.store.workspaces.listMembers(workspaceId);
  const known = new Map<string, CredentialCreator>(
    members.map((member) => [
      member.userId,
      { user_id: member.userId, email: member.email, former_member: false },
    ]),
  );
  const former = [...new Set(userIds)].filter((id): id is string => id !== null && !known.has(id));
  for (const id of former) {
    const user = await deps.store.users.get(id);
    known.set(id, { user_id: id, email: user?.email ?? null, former_member: true });
  }
  return (userId) => (userId === null ? null : (known.get(userId) ?? null));
}

/** Listed credentials (keys, webhook endpoints), each with its `creator`, marked when they have left. */
export async function withCreators<T extends { created_by: string | null }>(
  deps: Deps<'workspaces' | 'users'>,
  workspaceId: string,
  items: readonly T[],
): Promise<(T & { creator: CredentialCreator | null })[]> {
  const creatorOf = await creatorsIn(
    deps,
    workspaceId,
    items.map((item) => item.created_by),
  );
  return items.map((item) => ({ ...item, creator: creatorOf(item.created_by) }));
}
