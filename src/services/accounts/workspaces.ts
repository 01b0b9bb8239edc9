import { newId } from '../../core/base62.js';
import { emptyBrand } from '../../core/brand-context.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { emailSchema, nameSchema, parseInput, passwordSchema } from '../../core/inputs.js';
import type { UserRecord, WorkspaceMembership, WorkspaceRecord } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { hashPassword } from '../auth/passwords.js';

/** The user with this email, created (without a password, unless one is given) if there is none yet. */
export async function findOrCreateUser(
  deps: Deps<'users'>,
  email: string,
  password?: string,
): Promise<UserRecord> {
  const normalized = parseInput(emailSchema, email, 'email');
  const existing = await deps.store.users.findByEmail(normalized);
  if (existing) return existing;
  const user: UserRecord = {
    id: newId('usr'),
    email: normalized,
    passwordHash:
      password === undefined ? null : await hashPassword(parseInput(passwordSchema, password, 'password')),
    createdAt: isoAt(deps.clock),
  };
  await deps.store.users.create(user);
  return user;
}

/** Sets (or replaces) a user's password, for operators at the CLI: the account's sign-in sessions end. */
export async function setPassword(deps: Deps<'users'>, email: string, password: string): Promise<UserRecord> {
  const user = await deps.store.users.findByEmail(parseInput(emailSchema, email, 'email'));
  if (!user)
    throw new AppError(
      'invalid_request',
      { reason: 'no_account', email },
      { fields: [{ field: 'email', message: 'has no account' }] },
    );
  await deps.store.users.setPasswordHash(
    user.id,
    await hashPassword(parseInput(passwordSchema, password, 'password')),
  );
  return user;
}

export interface NewWorkspace {
  name: string;
  owner?: UserRecord;
}

/** A workspace with an empty brand named after it; `owner`, when given, becomes its owner. */
export async function createWorkspace(
  deps: Deps<'workspaces' | 'audit'>,
  actor: Actor,
  input: NewWorkspace,
): Promise<WorkspaceRecord> {
  const workspace: WorkspaceRecord = {
    id: newId('ws', 24),
    name: parseInput(nameSchema, input.name, 'name'),
    createdAt: isoAt(deps.clock),
  };
  const { owner } = input;
  await deps.store.transaction(async (tx) => {
    await tx.workspaces.create(workspace, emptyBrand());
    if (owner)
      await tx.workspaces.addMember({
        workspaceId: workspace.id,
        userId: owner.id,
        role: 'owner',
        createdAt: workspace.createdAt,
      });
    await recordAudit(tx, actor, workspace.createdAt, {
      workspaceId: workspace.id,
      action: 'workspace.created',
      targetType: 'workspace',
      targetId: workspace.id,
      details: { name: workspace.name, owner: owner?.email ?? null },
    });
  });
  return workspace;
}

/** A workspace as the API and the CLI show it (the API adds the caller's role). */
export function toWorkspaceView(record: WorkspaceRecord): { id: string; name: string; created_at: string } {
  return { id: record.id, name: record.name, created_at: record.createdAt };
}

export function listWorkspaces(deps: Deps<'workspaces'>): Promise<WorkspaceRecord[]> {
  return deps.store.workspaces.list();
}

export function listWorkspacesOf(deps: Deps<'workspaces'>, userId: string): Promise<WorkspaceMembership[]> {
  return deps.store.workspaces.listOf(userId);
}

export async function requireWorkspace(
  deps: Deps<'workspaces'>,
  workspaceId: string,
): Promise<WorkspaceRecord> {
  const workspace = await deps.store.workspaces.get(workspaceId);
  if (!workspace) throw new AppError('workspace_not_found', { workspaceId });
  return workspace;
}
