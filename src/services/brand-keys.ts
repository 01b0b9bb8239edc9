import { newId } from '../core/base62.js';
import { brandKeyHint, generateBrandKey, hashBrandKey } from '../core/brand-key.js';
import { isoAt } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { brandKeyExpiry, brandKeyStatus, type BrandKeyStatus } from '../core/key-lifecycle.js';
import type { BrandKeyRecord } from '../store/store.js';
import type { Deps } from './deps.js';
import { requireWorkspace } from './workspaces.js';

const KEY_NAME_MAX = 100;

/** A key as listings show it: never the secret, nor its hash. */
export interface BrandKeyView {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  last4: string;
  status: BrandKeyStatus;
  created_by: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** The create call's answer (DESIGN 4.2): the only time the key itself is ever shown. */
export interface CreatedBrandKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  created_at: string;
  expires_at: string;
}

export function toBrandKeyView(record: BrandKeyRecord, now: number): BrandKeyView {
  const status = brandKeyStatus(
    {
      expiresAt: Date.parse(record.expiresAt),
      revokedAt: record.revokedAt === null ? null : Date.parse(record.revokedAt),
    },
    now,
  );
  return {
    id: record.id,
    workspace_id: record.workspaceId,
    name: record.name,
    prefix: record.prefix,
    last4: record.last4,
    status,
    created_by: record.createdBy,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    last_used_at: record.lastUsedAt,
  };
}

function validKeyName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > KEY_NAME_MAX) {
    throw new AppError('invalid_request', `Key name must be 1-${KEY_NAME_MAX} characters.`, [
      { field: 'name', message: `must be 1-${KEY_NAME_MAX} characters` },
    ]);
  }
  return trimmed;
}

export async function createBrandKey(
  deps: Deps,
  input: { workspaceId: string; name: string; createdBy?: string | null },
): Promise<CreatedBrandKey> {
  const name = validKeyName(input.name);
  await requireWorkspace(deps, input.workspaceId);
  const key = generateBrandKey();
  const now = deps.clock.now();
  const record: BrandKeyRecord = {
    id: newId('bk'),
    workspaceId: input.workspaceId,
    name,
    keyHash: hashBrandKey(key),
    ...brandKeyHint(key),
    createdBy: input.createdBy ?? null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(brandKeyExpiry(now)).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.createBrandKey(record);
  return {
    id: record.id,
    name: record.name,
    key,
    prefix: record.prefix,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
  };
}

export async function listBrandKeys(deps: Deps, workspaceId: string): Promise<BrandKeyView[]> {
  await requireWorkspace(deps, workspaceId);
  const now = deps.clock.now();
  return (await deps.store.listBrandKeys(workspaceId)).map((record) => toBrandKeyView(record, now));
}

/** Revokes the key at once, everywhere; revoking a revoked key is not an error and changes nothing. */
export async function revokeBrandKey(deps: Deps, workspaceId: string, keyId: string): Promise<BrandKeyView> {
  await requireWorkspace(deps, workspaceId);
  const record = await deps.store.revokeBrandKey(workspaceId, keyId, isoAt(deps.clock));
  if (!record)
    throw new AppError('key_not_found', `Workspace ${workspaceId} has no brand read key ${keyId}.`);
  return toBrandKeyView(record, deps.clock.now());
}
