import { newId } from '../core/base62.js';
import { emptyBrand } from '../core/brand-context.js';
import { isoAt } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import type { Role, UserRecord, WorkspaceRecord } from '../store/store.js';
import type { Deps } from './deps.js';
import { hashPassword } from './passwords.js';

const WORKSPACE_NAME_MAX = 200;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function validName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > WORKSPACE_NAME_MAX) {
    throw new AppError('invalid_request', `Workspace name must be 1-${WORKSPACE_NAME_MAX} characters.`, [
      { field: 'name', message: `must be 1-${WORKSPACE_NAME_MAX} characters` },
    ]);
  }
  return trimmed;
}

export function normalizeEmail(email: string): string {
  const normalized = email.trim().toLowerCase();
  if (!EMAIL.test(normalized) || normalized.length > 320) {
    throw new AppError('invalid_request', `"${email}" is not an email address.`, [
      { field: 'email', message: 'must be an email address' },
    ]);
  }
  return normalized;
}

/** The user with this email, created (without a password, unless one is given) if there is none yet. */
export async function findOrCreateUser(deps: Deps, email: string, password?: string): Promise<UserRecord> {
  const normalized = normalizeEmail(email);
  const existing = await deps.store.findUserByEmail(normalized);
  if (existing) return existing;
  const user: UserRecord = {
    id: newId('usr'),
    email: normalized,
    passwordHash: password === undefined ? null : await hashPassword(password),
    createdAt: isoAt(deps.clock),
  };
  await deps.store.createUser(user);
  return user;
}

export interface NewWorkspace {
  name: string;
  owner?: UserRecord;
}

/** A workspace with an empty brand named after it; `owner`, when given, becomes its owner. */
export async function createWorkspace(deps: Deps, input: NewWorkspace): Promise<WorkspaceRecord> {
  const workspace: WorkspaceRecord = {
    id: newId('ws', 24),
    name: validName(input.name),
    createdAt: isoAt(deps.clock),
  };
  const { owner } = input;
  await deps.store.transaction(async (store) => {
    await store.createWorkspace(workspace, emptyBrand());
    if (owner) {
      const role: Role = 'owner';
      await store.addMember({
        workspaceId: workspace.id,
        userId: owner.id,
        role,
        createdAt: workspace.createdAt,
      });
    }
  });
  return workspace;
}

export function listWorkspaces(deps: Deps): Promise<WorkspaceRecord[]> {
  return deps.store.listWorkspaces();
}

export async function requireWorkspace(deps: Deps, workspaceId: string): Promise<WorkspaceRecord> {
  const workspace = await deps.store.getWorkspace(workspaceId);
  if (!workspace) throw new AppError('workspace_not_found', `Workspace ${workspaceId} does not exist.`);
  return workspace;
}
