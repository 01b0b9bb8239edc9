import { newId } from '../core/base62.js';
import { brandKeyHint, generateBrandKey, hashBrandKey } from '../core/brand-key.js';
import { isoAt } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { nameSchema, parseInput } from '../core/inputs.js';
import {
  brandKeyExpiry,
  brandKeyStatus,
  type BrandKeyStatus,
  lifecycleTimes,
} from '../core/key-lifecycle.js';
import type { BrandKeyRecord } from '../store/store.js';
import { type Actor, recordAudit } from './audit.js';
import type { Deps } from './deps.js';
import type { UsageRecorder } from './usage.js';
import { requireWorkspace } from './workspaces.js';

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
  const status = brandKeyStatus(lifecycleTimes(record), now);
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

export async function createBrandKey(
  deps: Deps,
  actor: Actor,
  input: { workspaceId: string; name: string },
): Promise<CreatedBrandKey> {
  const name = parseInput(nameSchema, input.name, 'name');
  await requireWorkspace(deps, input.workspaceId);
  const key = generateBrandKey();
  const now = deps.clock.now();
  const record: BrandKeyRecord = {
    id: newId('bk'),
    workspaceId: input.workspaceId,
    name,
    keyHash: hashBrandKey(key),
    ...brandKeyHint(key),
    createdBy: actor.kind === 'user' ? actor.userId : null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(brandKeyExpiry(now)).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.transaction(async (store) => {
    await store.createBrandKey(record);
    await recordAudit(store, actor, record.createdAt, {
      workspaceId: record.workspaceId,
      action: 'brand_key.created',
      targetType: 'brand_key',
      targetId: record.id,
      details: { name: record.name, prefix: record.prefix, expires_at: record.expiresAt },
    });
  });
  return {
    id: record.id,
    name: record.name,
    key,
    prefix: record.prefix,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
  };
}

/** @param usage this process's uses not yet written, so a listing shows them at once. */
export async function listBrandKeys(
  deps: Deps,
  workspaceId: string,
  usage?: UsageRecorder,
): Promise<BrandKeyView[]> {
  await requireWorkspace(deps, workspaceId);
  const now = deps.clock.now();
  return (await deps.store.listBrandKeys(workspaceId)).map((record) => {
    const view = toBrandKeyView(record, now);
    return { ...view, last_used_at: usage?.pendingBrandKeyUse(record.id) ?? view.last_used_at };
  });
}

/** Revokes the key at once, everywhere; revoking a revoked key is not an error and changes nothing. */
export async function revokeBrandKey(
  deps: Deps,
  actor: Actor,
  workspaceId: string,
  keyId: string,
): Promise<BrandKeyView> {
  await requireWorkspace(deps, workspaceId);
  const now = isoAt(deps.clock);
  const revocation = await deps.store.transaction(async (store) => {
    const revoked = await store.revokeBrandKey(workspaceId, keyId, now);
    if (revoked?.revokedNow) {
      await recordAudit(store, actor, now, {
        workspaceId,
        action: 'brand_key.revoked',
        targetType: 'brand_key',
        targetId: keyId,
        details: { name: revoked.record.name, prefix: revoked.record.prefix },
      });
    }
    return revoked;
  });
  if (!revocation)
    throw new AppError('key_not_found', `Workspace ${workspaceId} has no brand read key ${keyId}.`);
  return toBrandKeyView(revocation.record, deps.clock.now());
}
