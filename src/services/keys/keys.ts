import { z } from 'zod';
import type { CreatedKey, KeyView } from '../../contract/keys.js';
import { keyEventType } from '../../contract/webhooks.js';
import { newId } from '../../core/base62.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { nameSchema, parseInput } from '../../core/inputs.js';
import { KEY_KINDS, type KeyKindId, mapKeyKinds } from '../../core/key-kinds.js';
import { brandKeyStatus, lifecycleTimes } from '../../core/key-lifecycle.js';
import { hashKey, KEY_FORMATS } from '../../core/secret-keys.js';
import type { KeyRecord, Repositories, Revocation } from '../../store/store.js';
import { type Actor, recordAudit, SYSTEM } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';
import type { UsageRecorder } from '../auth/usage.js';
import { requireWorkspace } from '../accounts/workspaces.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** An expiry the operator asks for (transactional email keys): whole days, at most ten years. */
export const MAX_KEY_DAYS = 3650;
const keyDaysSchema = z.number().int().min(1).max(MAX_KEY_DAYS);

/** A new key: its name, and (transactional email keys, by the operator) how many days it lives. */
export interface KeyInput {
  workspaceId: string;
  name: string;
  expiresInDays?: number | undefined;
}

/** What managing keys touches. */
type KeyDeps = Deps<'keys' | 'audit' | 'workspaces' | EventRepositories>;

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

/** The workspace has no key of this kind and id. */
function keyNotFound(kindId: KeyKindId, workspaceId: string, keyId: string): AppError {
  return new AppError(KEY_KINDS[kindId].problems.notFound, { workspaceId, keyId });
}

/** When a key created at `now` expires: after `days` when given, else after its kind's lifetime, if it has one. */
function keyExpiry(kindId: KeyKindId, now: number, days: number | undefined): number | null {
  const lifetime = days ?? KEY_KINDS[kindId].lifetimeDays;
  return lifetime === null ? null : now + lifetime * DAY_MS;
}

/**
 * A new key and its id: signed for its workspace where its kind is and a secret is configured
 * (src/services/keys/signed-keys.ts), else random.
 */
function newKey(
  kindId: KeyKindId,
  deps: KeyDeps,
  workspaceId: string,
  expiresAt: number | null,
): { key: string; id: string } {
  // A signature carries an expiry: a key that never expires is not signed.
  const signer = expiresAt === null ? undefined : deps.keySigners?.[kindId];
  if (signer !== undefined && expiresAt !== null) return signer.issue(workspaceId, expiresAt);
  return { key: KEY_FORMATS[kindId].generate(), id: newId(KEY_KINDS[kindId].idPrefix) };
}

async function createKey(
  kindId: KeyKindId,
  deps: KeyDeps,
  actor: Actor,
  input: KeyInput,
): Promise<CreatedKey> {
  const name = parseInput(nameSchema, input.name, 'name');
  const days = parseInput(keyDaysSchema.optional(), input.expiresInDays, 'expires_in_days');
  await requireWorkspace(deps, input.workspaceId);
  const { auditTarget } = KEY_KINDS[kindId];
  const now = deps.clock.now();
  const expiresAt = keyExpiry(kindId, now, days);
  const { key, id } = newKey(kindId, deps, input.workspaceId, expiresAt);
  const record: KeyRecord = {
    id,
    workspaceId: input.workspaceId,
    name,
    keyHash: hashKey(key),
    ...KEY_FORMATS[kindId].hint(key),
    createdBy: actor.kind === 'user' ? actor.userId : null,
    createdAt: new Date(now).toISOString(),
    expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
    revokedAt: null,
    lastUsedAt: null,
  };
  await deps.store.transaction(async (tx) => {
    await tx.keys.create(kindId, record);
    await recordAudit(tx, actor, record.createdAt, {
      workspaceId: record.workspaceId,
      action: `${auditTarget}.created`,
      targetType: auditTarget,
      targetId: record.id,
      details: { name: record.name, prefix: record.prefix, expires_at: record.expiresAt },
    });
    await publishEvent(tx, record.createdAt, {
      workspaceId: record.workspaceId,
      type: keyEventType(KEY_KINDS[kindId], 'created'),
      data: { key: toKeyView(record, now) },
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
  kindId: KeyKindId,
  deps: Deps<'keys' | 'workspaces'>,
  workspaceId: string,
  usage?: UsageRecorder,
): Promise<KeyView[]> {
  await requireWorkspace(deps, workspaceId);
  const now = deps.clock.now();
  return (await deps.store.keys.list(kindId, workspaceId)).map((record) => {
    const view = toKeyView(record, now);
    return { ...view, last_used_at: usage?.pendingUse(kindId, record.id) ?? view.last_used_at };
  });
}

/** Revokes the key at once, everywhere; revoking a revoked key is not an error and changes nothing. */
async function revokeKey(
  kindId: KeyKindId,
  deps: KeyDeps,
  actor: Actor,
  workspaceId: string,
  keyId: string,
): Promise<KeyView> {
  await requireWorkspace(deps, workspaceId);
  const now = isoAt(deps.clock);
  const revocation = await deps.store.transaction((tx) =>
    revokeKeyIn(tx, kindId, actor, now, workspaceId, keyId),
  );
  if (!revocation) throw keyNotFound(kindId, workspaceId, keyId);
  return toKeyView(revocation.record, deps.clock.now());
}

/**
 * Inside the transaction `tx`, revokes a key at `at`: audited as `actor`'s (with `reason` when given) and
 * announced as its `…revoked` event, unless it was revoked already. Undefined when there is no such key.
 */
export async function revokeKeyIn(
  tx: Pick<Repositories, 'keys' | 'audit' | EventRepositories>,
  kindId: KeyKindId,
  actor: Actor,
  at: string,
  workspaceId: string,
  keyId: string,
  reason?: string,
): Promise<Revocation<KeyRecord> | undefined> {
  const revoked = await tx.keys.revoke(kindId, workspaceId, keyId, at);
  if (revoked?.revokedNow) await announceRevocation(tx, kindId, actor, at, revoked.record, reason);
  return revoked;
}

/** Audits a key's revocation as `actor`'s (with `reason` when given) and announces its `…revoked` event. */
async function announceRevocation(
  tx: Pick<Repositories, 'audit' | EventRepositories>,
  kindId: KeyKindId,
  actor: Actor,
  at: string,
  record: KeyRecord,
  reason?: string,
): Promise<void> {
  const kind = KEY_KINDS[kindId];
  await recordAudit(tx, actor, at, {
    workspaceId: record.workspaceId,
    action: `${kind.auditTarget}.revoked`,
    targetType: kind.auditTarget,
    targetId: record.id,
    details: { name: record.name, prefix: record.prefix, ...(reason !== undefined && { reason }) },
  });
  await publishEvent(tx, at, {
    workspaceId: record.workspaceId,
    type: keyEventType(kind, 'revoked'),
    data: { key: toKeyView(record, Date.parse(at)) },
  });
}

/** How the key list names a key found working by its signature with no row (docs/keys.md "Brand read keys"). */
export const UNRECORDED_KEY_NAME = 'Unrecorded key (refused)';

/** A key its signature verified, which turned out to have no row: what is known of it without the key itself. */
export interface UnrecordedKey {
  id: string;
  workspaceId: string;
  keyHash: string;
  prefix: string;
  last4: string;
  /** Ms since 1970, as its signature says (at most its kind's lifetime from when it was used). */
  expiresAt: number;
}

/**
 * Records a signed key that has no row as revoked (docs/keys.md "Brand read keys", unrecorded keys): the change feed
 * then has every node refuse it, and the key list shows it, audited and announced to webhooks as a
 * revocation by the service. 'exists' when another node recorded it first (or its row was there after all);
 * 'no_workspace' when the workspace it names does not exist, so there is nothing to list it in.
 */
export async function recordUnrecordedKey(
  kindId: KeyKindId,
  deps: Deps<'keys' | 'audit' | 'workspaces' | EventRepositories>,
  key: UnrecordedKey,
): Promise<'recorded' | 'exists' | 'no_workspace'> {
  const now = deps.clock.now();
  const at = new Date(now).toISOString();
  const record: KeyRecord = {
    id: key.id,
    workspaceId: key.workspaceId,
    name: UNRECORDED_KEY_NAME,
    keyHash: key.keyHash,
    prefix: key.prefix,
    last4: key.last4,
    createdBy: null,
    createdAt: at,
    expiresAt: new Date(key.expiresAt).toISOString(),
    revokedAt: at,
    lastUsedAt: at,
  };
  return deps.store.transaction(async (tx) => {
    if ((await tx.workspaces.get(key.workspaceId)) === undefined) return 'no_workspace';
    if (!(await tx.keys.createUnlessExists(kindId, record))) return 'exists';
    await announceRevocation(tx, kindId, SYSTEM, at, record, 'unrecorded');
    return 'recorded';
  });
}

/** The key to replace, and what the replacement changes: its name, and how many days it lives. */
export interface RotateInput {
  workspaceId: string;
  keyId: string;
  name?: string | undefined;
  expiresInDays?: number | undefined;
}

/**
 * How many days a replacement lives when not told: as long as the key it replaces did (its created→expires
 * span, in whole days), for kinds without a lifetime of their own; undefined for the kind's own, or never.
 */
function replacementDays(kindId: KeyKindId, replaced: KeyView): number | undefined {
  if (KEY_KINDS[kindId].lifetimeDays !== null || replaced.expires_at === null) return undefined;
  const span = Date.parse(replaced.expires_at) - Date.parse(replaced.created_at);
  return Math.max(1, Math.round(span / DAY_MS));
}

/**
 * Rotation's first step (docs/keys.md "Brand read keys"): a replacement for a key of the workspace, named after it
 * unless `name` is given, living as long as it did unless `expiresInDays` is given. An unknown key id is
 * refused before anything is created: a typo must not leave an extra live key behind. The old key stays valid
 * until it is revoked.
 */
async function rotateKey(
  kindId: KeyKindId,
  deps: KeyDeps,
  actor: Actor,
  input: RotateInput,
): Promise<{ replaced: KeyView; created: CreatedKey }> {
  const replaced = (await listKeys(kindId, deps, input.workspaceId)).find((key) => key.id === input.keyId);
  if (!replaced) throw keyNotFound(kindId, input.workspaceId, input.keyId);
  const created = await createKey(kindId, deps, actor, {
    workspaceId: input.workspaceId,
    name: input.name ?? `${replaced.name} (rotated)`,
    expiresInDays: input.expiresInDays ?? replacementDays(kindId, replaced),
  });
  return { replaced, created };
}

/** Creating, listing, revoking and rotating the keys of one kind: every kind shares one life. */
export interface KeyService {
  create: (deps: KeyDeps, actor: Actor, input: KeyInput) => Promise<CreatedKey>;
  list: (deps: Deps<'keys' | 'workspaces'>, workspaceId: string, usage?: UsageRecorder) => Promise<KeyView[]>;
  revoke: (deps: KeyDeps, actor: Actor, workspaceId: string, keyId: string) => Promise<KeyView>;
  rotate: (
    deps: KeyDeps,
    actor: Actor,
    input: RotateInput,
  ) => Promise<{ replaced: KeyView; created: CreatedKey }>;
}

/** The service of every kind of key (src/core/key-kinds.ts). */
export const KEY_SERVICES: Record<KeyKindId, KeyService> = mapKeyKinds(({ id }) => ({
  create: (...args) => createKey(id, ...args),
  list: (...args) => listKeys(id, ...args),
  revoke: (...args) => revokeKey(id, ...args),
  rotate: (...args) => rotateKey(id, ...args),
}));

/** The services the demo and the tests call by name. */
export const { create: createBrandKey, list: listBrandKeys, revoke: revokeBrandKey } = KEY_SERVICES.brand;
export const { create: createApiKey } = KEY_SERVICES.api;
