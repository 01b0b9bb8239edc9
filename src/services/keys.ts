import { newId } from '../core/base62.js';
import { isoAt } from '../core/clock.js';
import { AppError, type ProblemCode } from '../core/errors.js';
import { nameSchema, parseInput } from '../core/inputs.js';
import {
  brandKeyExpiry,
  brandKeyStatus,
  type BrandKeyStatus,
  lifecycleTimes,
} from '../core/key-lifecycle.js';
import { BRAND_KEY, hashKey, type KeyFormat, WORKSPACE_API_KEY } from '../core/secret-keys.js';
import type { KeyRecord, Revocation, Store } from '../store/store.js';
import { type Actor, recordAudit } from './audit.js';
import type { Deps } from './deps.js';
import type { UsageRecorder } from './usage.js';
import { requireWorkspace } from './workspaces.js';

/**
 * Brand read keys (`brk_`, the read operation) and workspace API keys (`wsk_`, the campaign API) share one
 * life: created by an owner or admin and shown once, stored as a hash, listed by prefix, revoked at once,
 * expired after 90 days. What differs between the two kinds is this table.
 */
interface KeyKind {
  format: KeyFormat;
  idPrefix: string;
  /** How details and errors name the kind. */
  label: string;
  auditTarget: 'brand_key' | 'api_key';
  notFound: ProblemCode;
  insert(store: Store, record: KeyRecord): Promise<void>;
  list(store: Store, workspaceId: string): Promise<KeyRecord[]>;
  revoke(
    store: Store,
    workspaceId: string,
    id: string,
    at: string,
  ): Promise<Revocation<KeyRecord> | undefined>;
  pendingUse(usage: UsageRecorder, id: string): string | undefined;
}

const BRAND_KEYS: KeyKind = {
  format: BRAND_KEY,
  idPrefix: 'bk',
  label: 'brand read key',
  auditTarget: 'brand_key',
  notFound: 'key_not_found',
  insert: (store, record) => store.createBrandKey(record),
  list: (store, workspaceId) => store.listBrandKeys(workspaceId),
  revoke: (store, workspaceId, id, at) => store.revokeBrandKey(workspaceId, id, at),
  pendingUse: (usage, id) => usage.pendingBrandKeyUse(id),
};

const API_KEYS: KeyKind = {
  format: WORKSPACE_API_KEY,
  idPrefix: 'ak',
  label: 'workspace API key',
  auditTarget: 'api_key',
  notFound: 'api_key_not_found',
  insert: (store, record) => store.createApiKey(record),
  list: (store, workspaceId) => store.listApiKeys(workspaceId),
  revoke: (store, workspaceId, id, at) => store.revokeApiKey(workspaceId, id, at),
  pendingUse: (usage, id) => usage.pendingApiKeyUse(id),
};

/** A key as listings show it: never the secret, nor its hash. */
export interface KeyView {
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

/** The create call's answer (README "Command line", `keys create`): the only time the key itself is shown. */
export interface CreatedKey {
  id: string;
  name: string;
  key: string;
  prefix: string;
  created_at: string;
  expires_at: string;
}

export function toKeyView(record: KeyRecord, now: number): KeyView {
  return {
    id: record.id,
    workspace_id: record.workspaceId,
    name: record.name,
    prefix: record.prefix,
    last4: record.last4,
    status: brandKeyStatus(lifecycleTimes(record), now),
    created_by: record.createdBy,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
    revoked_at: record.revokedAt,
    last_used_at: record.lastUsedAt,
  };
}

async function createKey(
  kind: KeyKind,
  deps: Deps,
  actor: Actor,
  input: { workspaceId: string; name: string },
): Promise<CreatedKey> {
  const name = parseInput(nameSchema, input.name, 'name');
  await requireWorkspace(deps, input.workspaceId);
  const key = kind.format.generate();
  const now = deps.clock.now();
  const record: KeyRecord = {
    id: newId(kind.idPrefix),
    workspaceId: input.workspaceId,
    name,
    keyHash: hashKey(key),
    ...kind.format.hint(key),
    createdBy: actor.kind === 'user' ? actor.userId : null,
    createdAt: new Date(now).toISOString(),
    expiresAt: new Date(brandKeyExpiry(now)).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.transaction(async (store) => {
    await kind.insert(store, record);
    await recordAudit(store, actor, record.createdAt, {
      workspaceId: record.workspaceId,
      action: `${kind.auditTarget}.created`,
      targetType: kind.auditTarget,
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
async function listKeys(
  kind: KeyKind,
  deps: Deps,
  workspaceId: string,
  usage?: UsageRecorder,
): Promise<KeyView[]> {
  await requireWorkspace(deps, workspaceId);
  const now = deps.clock.now();
  return (await kind.list(deps.store, workspaceId)).map((record) => {
    const view = toKeyView(record, now);
    return { ...view, last_used_at: (usage && kind.pendingUse(usage, record.id)) ?? view.last_used_at };
  });
}

/** Revokes the key at once, everywhere; revoking a revoked key is not an error and changes nothing. */
async function revokeKey(
  kind: KeyKind,
  deps: Deps,
  actor: Actor,
  workspaceId: string,
  keyId: string,
): Promise<KeyView> {
  await requireWorkspace(deps, workspaceId);
  const now = isoAt(deps.clock);
  const revocation = await deps.store.transaction(async (store) => {
    const revoked = await kind.revoke(store, workspaceId, keyId, now);
    if (revoked?.revokedNow) {
      await recordAudit(store, actor, now, {
        workspaceId,
        action: `${kind.auditTarget}.revoked`,
        targetType: kind.auditTarget,
        targetId: keyId,
        details: { name: revoked.record.name, prefix: revoked.record.prefix },
      });
    }
    return revoked;
  });
  if (!revocation)
    throw new AppError(kind.notFound, `Workspace ${workspaceId} has no ${kind.label} ${keyId}.`);
  return toKeyView(revocation.record, deps.clock.now());
}

/**
 * Rotation's first step (README "Brand read keys"): a replacement for a key of the workspace, named after it
 * unless `name` is given. An unknown key id is refused before anything is created: a typo must not leave an
 * extra live key behind. The old key stays valid until it is revoked.
 */
async function rotateKey(
  kind: KeyKind,
  deps: Deps,
  actor: Actor,
  input: { workspaceId: string; keyId: string; name?: string | undefined },
): Promise<{ replaced: KeyView; created: CreatedKey }> {
  const replaced = (await listKeys(kind, deps, input.workspaceId)).find((key) => key.id === input.keyId);
  if (!replaced) {
    throw new AppError(kind.notFound, `Workspace ${input.workspaceId} has no ${kind.label} ${input.keyId}.`);
  }
  const name = input.name ?? `${replaced.name} (rotated)`;
  const created = await createKey(kind, deps, actor, { workspaceId: input.workspaceId, name });
  return { replaced, created };
}

type Create = (deps: Deps, actor: Actor, input: { workspaceId: string; name: string }) => Promise<CreatedKey>;
type List = (deps: Deps, workspaceId: string, usage?: UsageRecorder) => Promise<KeyView[]>;
type Revoke = (deps: Deps, actor: Actor, workspaceId: string, keyId: string) => Promise<KeyView>;
type Rotate = (
  deps: Deps,
  actor: Actor,
  input: { workspaceId: string; keyId: string; name?: string | undefined },
) => Promise<{ replaced: KeyView; created: CreatedKey }>;

export const createBrandKey: Create = (...args) => createKey(BRAND_KEYS, ...args);
export const listBrandKeys: List = (...args) => listKeys(BRAND_KEYS, ...args);
export const revokeBrandKey: Revoke = (...args) => revokeKey(BRAND_KEYS, ...args);
export const rotateBrandKey: Rotate = (...args) => rotateKey(BRAND_KEYS, ...args);

export const createApiKey: Create = (...args) => createKey(API_KEYS, ...args);
export const listApiKeys: List = (...args) => listKeys(API_KEYS, ...args);
export const revokeApiKey: Revoke = (...args) => revokeKey(API_KEYS, ...args);
export const rotateApiKey: Rotate = (...args) => rotateKey(API_KEYS, ...args);

/** A workspace API key that passed every check of this request. */
export interface VerifiedApiKey {
  id: string;
  workspaceId: string;
}

/**
 * Authenticates a workspace API key. The campaign API is no hot path, so each request looks the key up;
 * like brand read keys, expiry and revocation are judged against the clock on every request.
 */
export async function verifyApiKey(
  deps: Deps,
  token: string,
  usage?: UsageRecorder,
): Promise<VerifiedApiKey> {
  if (WORKSPACE_API_KEY.formatProblem(token) !== undefined) {
    throw new AppError('api_key_invalid', 'The workspace API key is malformed (wrong length or checksum).');
  }
  const record = await deps.store.findApiKeyByHash(hashKey(token));
  if (!record) throw new AppError('api_key_invalid', 'The workspace API key is not known to this service.');
  const now = deps.clock.now();
  const status = brandKeyStatus(lifecycleTimes(record), now);
  if (status === 'expired') {
    throw new AppError(
      'api_key_expired',
      `The workspace API key ${record.prefix}… expired at ${record.expiresAt}.`,
    );
  }
  if (status === 'revoked') {
    throw new AppError('api_key_revoked', `The workspace API key ${record.prefix}… was revoked.`);
  }
  usage?.apiKeyUsed(record.id, now);
  return { id: record.id, workspaceId: record.workspaceId };
}
