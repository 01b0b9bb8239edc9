import type { BrandContext } from '../core/brand-context.js';
import type { ChangeFeed } from './change-feed.js';

import type { CampaignContent, CampaignStatus } from '../contract/campaigns.js';
import type { KeyKindId } from '../core/key-kinds.js';
import type { Role } from '../core/roles.js';

export type { CampaignStatus, Role };

export interface WorkspaceRecord {
  id: string;
  name: string;
  createdAt: string;
}

export interface UserRecord {
  id: string;
  email: string;
  passwordHash: string | null;
  createdAt: string;
}

export interface MembershipRecord {
  workspaceId: string;
  userId: string;
  role: Role;
  createdAt: string;
}

/** A brand read key (`brk_`) or a workspace API key (`wsk_`): both are stored alike, in their own tables. */
export interface KeyRecord {
  id: string;
  workspaceId: string;
  name: string;
  keyHash: string;
  prefix: string;
  last4: string;
  createdBy: string | null;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

/**
 * A campaign: what its author wrote, under the contract's names (src/contract/campaigns.ts), so that the
 * repository and the services carry the content fields along without naming them.
 */
export interface CampaignRecord extends CampaignContent {
  id: string;
  workspaceId: string;
  status: CampaignStatus;
  /** 1 when created, +1 on every change: the optimistic-concurrency token behind ETag/If-Match. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** A change to a campaign: the fields it names, and when it was made. */
export interface CampaignUpdate extends Partial<CampaignContent> {
  status?: CampaignStatus;
  updatedAt: string;
}

/** A listing position: the (created_at, id) of the last campaign of the previous page. */
export interface CampaignCursor {
  createdAt: string;
  id: string;
}

/** A personal access token's record; the token itself (a signed JWT) is never stored. */
export interface AccessTokenRecord {
  id: string;
  userId: string;
  name: string;
  createdAt: string;
  expiresAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export type ActorType = 'user' | 'api_key' | 'operator';

export interface AuditEventRecord {
  id: string;
  workspaceId: string | null;
  actorType: ActorType;
  /** The user's or key's id; null for operator actions taken through the CLI. */
  actorId: string | null;
  actorEmail: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  details: Record<string, string | number | boolean | null>;
  createdAt: string;
}

/** An audit event as listed, with its position in the log. */
export interface StoredAuditEvent extends AuditEventRecord {
  seq: number;
}

export interface WorkspaceMembership extends WorkspaceRecord {
  role: Role;
}

/** When each credential was last used, gathered in memory and written in batches. */
export interface UsageStamp {
  id: string;
  usedAt: string;
}

/** A revoked record, and whether this call revoked it (false: it was revoked already). */
export interface Revocation<T> {
  record: T;
  revokedNow: boolean;
}

/** A brand context as it is written: everything but the server-maintained `workspace_id`, `updated_at`, `version`. */
export type BrandContent = Omit<BrandContext, 'workspace_id' | 'updated_at' | 'version'>;

/** The user accounts: people who sign in, hold personal tokens and belong to any number of workspaces. */
export interface UsersRepository {
  create(user: UserRecord): Promise<void>;
  get(id: string): Promise<UserRecord | undefined>;
  findByEmail(email: string): Promise<UserRecord | undefined>;
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;
}

/** Workspaces and who belongs to them, with which role. */
export interface WorkspacesRepository {
  /** Creates the workspace with its first brand (version 1); the brand's name is the workspace's. */
  create(workspace: WorkspaceRecord, brand: Omit<BrandContent, 'name'>): Promise<void>;
  get(id: string): Promise<WorkspaceRecord | undefined>;
  list(): Promise<WorkspaceRecord[]>;
  /** The workspaces `userId` belongs to, with the role in each. */
  listOf(userId: string): Promise<WorkspaceMembership[]>;
  addMember(membership: MembershipRecord): Promise<void>;
  getMember(workspaceId: string, userId: string): Promise<MembershipRecord | undefined>;
  /**
   * The members with their emails. With `lock`, inside a transaction, their rows stay locked until it ends, so
   * that concurrent changes judged on the list (the last owner's removal) apply one after the other.
   */
  listMembers(
    workspaceId: string,
    options?: { lock?: boolean },
  ): Promise<(MembershipRecord & { email: string })[]>;
  /** Returns whether there was such a member. */
  removeMember(workspaceId: string, userId: string): Promise<boolean>;
}

/** A workspace's brand context: what the read operation serves. */
export interface BrandRepository {
  get(workspaceId: string): Promise<BrandContext | undefined>;
  /** Replaces the whole brand (the name renames the workspace) and returns it with its new version. */
  replace(workspaceId: string, content: BrandContent, updatedAt: string): Promise<BrandContext>;
}

/** Workspace keys of every kind (src/core/key-kinds.ts), each kind in its own table. */
export interface KeysRepository {
  create(kind: KeyKindId, key: KeyRecord): Promise<void>;
  findByHash(kind: KeyKindId, keyHash: string): Promise<KeyRecord | undefined>;
  /** Newest first. */
  list(kind: KeyKindId, workspaceId: string): Promise<KeyRecord[]>;
  /** Sets `revoked_at` unless already set; undefined if the workspace has no such key. */
  revoke(
    kind: KeyKindId,
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<KeyRecord> | undefined>;
  /** Records `usedAt` for each key unless a later use is already recorded (several nodes flush). */
  touch(kind: KeyKindId, stamps: readonly UsageStamp[]): Promise<void>;
}

/** Personal access tokens, and the sign-in sessions that were signed out before they expired. */
export interface TokensRepository {
  create(token: AccessTokenRecord): Promise<void>;
  get(id: string): Promise<AccessTokenRecord | undefined>;
  /** Newest first. */
  list(userId: string): Promise<AccessTokenRecord[]>;
  /** Sets `revoked_at` unless already set; undefined if the user has no such token. */
  revoke(userId: string, id: string, revokedAt: string): Promise<Revocation<AccessTokenRecord> | undefined>;
  /** Records `usedAt` for each token unless a later use is already recorded. */
  touch(stamps: readonly UsageStamp[]): Promise<void>;
  /** Records a signed-out session until `expiresAt`, forgetting those whose tokens are past `now`. */
  signOutSession(id: string, expiresAt: string, now: string): Promise<void>;
  isSessionSignedOut(id: string): Promise<boolean>;
}

export interface CampaignsRepository {
  create(campaign: CampaignRecord): Promise<void>;
  get(workspaceId: string, id: string): Promise<CampaignRecord | undefined>;
  /** Newest first; `after` continues a listing after the last campaign of the previous page. */
  list(
    workspaceId: string,
    options: { status?: CampaignStatus | undefined; after?: CampaignCursor | undefined; limit: number },
  ): Promise<CampaignRecord[]>;
  /**
   * Applies `update` if the campaign is in `fromStatus`, raising its version by one, atomically against
   * concurrent updates: each applies to the version the previous one left. Returns the updated campaign
   * (the version it was applied to is one less), or undefined if there is no such campaign in that status.
   */
  update(
    workspaceId: string,
    id: string,
    fromStatus: CampaignStatus,
    update: CampaignUpdate,
  ): Promise<CampaignRecord | undefined>;
}

export interface AuditRepository {
  append(event: AuditEventRecord): Promise<void>;
  /** Newest first; `beforeSeq` continues a listing after its last event. */
  list(workspaceId: string, options: { beforeSeq?: number; limit: number }): Promise<StoredAuditEvent[]>;
}

export interface SettingsRepository {
  /** The stored value, or `value` stored now if there was none: the first writer wins, every node agrees. */
  getOrCreate(name: string, value: string): Promise<string>;
}

/** One repository per aggregate. */
export interface Repositories {
  users: UsersRepository;
  workspaces: WorkspacesRepository;
  brand: BrandRepository;
  keys: KeysRepository;
  tokens: TokensRepository;
  campaigns: CampaignsRepository;
  audit: AuditRepository;
  settings: SettingsRepository;
}

export type RepositoryName = keyof Repositories;

/**
 * Some repositories and the one transaction unit over them: what a use case declares it needs
 * (`UnitOfWork<'keys' | 'audit'>`). `tx` holds the same repositories bound to the transaction; a
 * transaction begun inside one joins it.
 */
export type UnitOfWork<Name extends RepositoryName = RepositoryName> = Pick<Repositories, Name> &
  Transactional<Name>;

interface Transactional<Name extends RepositoryName> {
  /** Runs `work` in one transaction: all of its writes land, or none do. */
  transaction<T>(work: (tx: UnitOfWork<Name>) => Promise<T>): Promise<T>;
}

/**
 * Persistence, and nothing else: no ids, clocks or rules are decided here. Every write that changes what
 * the read operation returns is announced on `changes`, to this process at once and to other processes
 * sharing the database within a second; which writes those are is declared where the repositories are
 * assembled (src/store/kysely-store.ts).
 */
export interface Store extends UnitOfWork {
  readonly kind: 'sqlite' | 'postgres';
  readonly changes: ChangeFeed;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
