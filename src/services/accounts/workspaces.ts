import { newId } from '../../core/base62.js';
import type { WorkspaceUpdate } from '../../contract/workspaces.js';
import { emptyBrand } from '../../core/brand-context.js';
import type { BrandReview } from '../../core/brand-versions.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { emailSchema, nameSchema, parseInput, passwordSchema } from '../../core/inputs.js';
import type { UserRecord, WorkspaceMembership, WorkspaceRecord } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { hashPassword } from '../auth/passwords.js';
import { commitBrandChange, contentOf } from '../brand/brand.js';
import { type EventRepositories } from '../webhooks/events.js';

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

/** A workspace's settings as GET and PATCH /api/v1/workspaces/{id} show them (the route adds the caller's role). */
export function toWorkspaceDetailsView(record: WorkspaceRecord): {
  id: string;
  name: string;
  created_at: string;
  brand_review: BrandReview;
} {
  return { ...toWorkspaceView(record), brand_review: record.brandReview ?? 'off' };
}

/**
 * Changes a workspace's settings in one transaction (docs/brand-versions.md "Review"). A new name is a change
 * of the brand (the brand's name is the workspace's), so it makes a new version, with review on too: only
 * owners and admins get here, and they publish anyway. Turning review off while a draft waits is refused
 * with 409 `draft_pending`. Values equal to the current ones change nothing.
 */
export async function updateWorkspace(
  deps: Deps<'workspaces' | 'brand' | 'audit' | EventRepositories>,
  actor: Actor,
  workspaceId: string,
  update: WorkspaceUpdate,
): Promise<WorkspaceRecord> {
  return deps.store.transaction(async (tx) => {
    const workspace = await tx.workspaces.get(workspaceId);
    const brand = await tx.brand.get(workspaceId);
    if (!workspace || !brand) throw new AppError('workspace_not_found', { workspaceId });
    const review = workspace.brandReview ?? 'off';
    const now = isoAt(deps.clock);
    const details: Record<string, string> = {};
    if (update.brand_review !== undefined && update.brand_review !== review) {
      if (update.brand_review === 'off' && (await tx.brand.getDraft(workspaceId)))
        throw new AppError('draft_pending', { workspaceId });
      await tx.workspaces.setBrandReview(workspaceId, update.brand_review);
      details.brand_review = update.brand_review;
    }
    if (update.name !== undefined && update.name !== brand.name) {
      await commitBrandChange(tx, now, actor, brand, {
        content: { ...contentOf(brand), name: update.name },
        note: null,
        action: 'brand.updated',
      });
      details.name = update.name;
    }
    if (Object.keys(details).length === 0) return workspace;
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'workspace.updated',
      targetType: 'workspace',
      targetId: workspaceId,
      details,
    });
    const updated = await tx.workspaces.get(workspaceId);
    if (!updated) throw new AppError('workspace_not_found', { workspaceId });
    return updated;
  });
}
