import { AppError } from '../core/errors.js';
import { can, type Permission } from '../core/roles.js';
import type { MembershipRecord, UserRecord } from '../store/store.js';
import type { Deps } from './deps.js';
import type { VerifiedApiKey } from './keys.js';

/**
 * The one authorization check of the management API: `user` must be a member of the workspace with a role
 * that grants `permission`. A workspace that does not exist is 404; one the user is not a member of, 403.
 */
export async function authorize(
  deps: Deps,
  user: UserRecord,
  workspaceId: string,
  permission: Permission,
): Promise<MembershipRecord> {
  const membership = await deps.store.getMembership(workspaceId, user.id);
  if (!membership) {
    return refuse(
      deps,
      workspaceId,
      `You are not a member of workspace ${workspaceId}.`,
      'Check the workspace id, or ask an owner or admin of that workspace to add your account as a member.',
    );
  }
  if (!can(membership.role, permission)) {
    throw new AppError(
      'insufficient_role',
      `The ${membership.role} role does not allow ${permission} in this workspace.`,
    );
  }
  return membership;
}

/** A workspace API key reaches its own workspace only (its permissions were checked with the route). */
export async function authorizeApiKey(deps: Deps, key: VerifiedApiKey, workspaceId: string): Promise<void> {
  if (key.workspaceId !== workspaceId) {
    await refuse(
      deps,
      workspaceId,
      `This workspace API key belongs to another workspace than ${workspaceId}.`,
    );
  }
}

/**
 * 404 for a workspace that does not exist, 403 with `detail` for one the caller may not reach, with `advice`
 * instead of the key-holder's resolution where the caller is no key.
 */
async function refuse(deps: Deps, workspaceId: string, detail: string, advice?: string): Promise<never> {
  const exists = (await deps.store.getWorkspace(workspaceId)) !== undefined;
  throw exists
    ? new AppError('workspace_forbidden', detail, [], {}, advice)
    : new AppError('workspace_not_found', `Workspace ${workspaceId} does not exist.`);
}
