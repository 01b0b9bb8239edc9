import type { BrandContext } from '../core/brand-context.js';
import type { ChangeFeed } from './change-feed.js';

import type { CampaignStatus } from '../core/campaigns.js';
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

export type BrandKeyRecord = KeyRecord;
export type ApiKeyRecord = KeyRecord;

/** What a campaign's author writes. */
export interface CampaignContent {
  name: string;
  subject: string;
  preheader: string;
  bodyHtml: string;
  bodyText: string;
}

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

/**
 * Persistence, and nothing else: no ids, clocks or rules are decided here. Every write that changes what
 * the read operation returns is announced on `changes`, to this process at once and to other processes
 * sharing the database within a second.
 */
export interface Store {
  readonly kind: 'sqlite' | 'postgres';
  readonly changes: ChangeFeed;

  /** Runs `work` in one transaction: all of its writes land, or none do. */
  transaction<T>(work: (store: Store) => Promise<T>): Promise<T>;

  createUser(user: UserRecord): Promise<void>;
  getUser(id: string): Promise<UserRecord | undefined>;
  findUserByEmail(email: string): Promise<UserRecord | undefined>;
  setPasswordHash(userId: string, passwordHash: string): Promise<void>;

  /** Creates the workspace with its first brand (version 1); the brand's name is the workspace's. */
  createWorkspace(workspace: WorkspaceRecord, brand: Omit<BrandContent, 'name'>): Promise<void>;
  getWorkspace(id: string): Promise<WorkspaceRecord | undefined>;
  listWorkspaces(): Promise<WorkspaceRecord[]>;
  /** The workspaces `userId` belongs to, with the role in each. */
  listWorkspacesOf(userId: string): Promise<WorkspaceMembership[]>;
  addMember(membership: MembershipRecord): Promise<void>;
  getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined>;
  listMembers(workspaceId: string): Promise<(MembershipRecord & { email: string })[]>;
  /** Returns whether there was such a member. */
  removeMember(workspaceId: string, userId: string): Promise<boolean>;

  getBrand(workspaceId: string): Promise<BrandContext | undefined>;
  /** Replaces the whole brand (the name renames the workspace) and returns it with its new version. */
  replaceBrand(workspaceId: string, content: BrandContent, updatedAt: string): Promise<BrandContext>;

  createBrandKey(key: BrandKeyRecord): Promise<void>;
  findBrandKeyByHash(keyHash: string): Promise<BrandKeyRecord | undefined>;
  listBrandKeys(workspaceId: string): Promise<BrandKeyRecord[]>;
  /** Sets `revoked_at` unless already set; undefined if the workspace has no such key. */
  revokeBrandKey(
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<BrandKeyRecord> | undefined>;

  /** Records `usedAt` for each key unless a later use is already recorded (several nodes flush). */
  touchBrandKeys(stamps: readonly UsageStamp[]): Promise<void>;

  createApiKey(key: ApiKeyRecord): Promise<void>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(workspaceId: string): Promise<ApiKeyRecord[]>;
  revokeApiKey(
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<ApiKeyRecord> | undefined>;
  touchApiKeys(stamps: readonly UsageStamp[]): Promise<void>;

  createCampaign(campaign: CampaignRecord): Promise<void>;
  getCampaign(workspaceId: string, id: string): Promise<CampaignRecord | undefined>;
  /** Newest first; `after` continues a listing after the last campaign of the previous page. */
  listCampaigns(
    workspaceId: string,
    options: { status?: CampaignStatus | undefined; after?: CampaignCursor | undefined; limit: number },
  ): Promise<CampaignRecord[]>;
  /**
   * Applies `update` if the campaign is in `fromStatus`, raising its version by one, atomically against
   * concurrent updates: each applies to the version the previous one left. Returns the updated campaign
   * (the version it was applied to is one less), or undefined if there is no such campaign in that status.
   */
  updateCampaign(
    workspaceId: string,
    id: string,
    fromStatus: CampaignStatus,
    update: CampaignUpdate,
  ): Promise<CampaignRecord | undefined>;

  createAccessToken(token: AccessTokenRecord): Promise<void>;
  getAccessToken(id: string): Promise<AccessTokenRecord | undefined>;
  listAccessTokens(userId: string): Promise<AccessTokenRecord[]>;
  revokeAccessToken(
    userId: string,
    id: string,
    revokedAt: string,
  ): Promise<Revocation<AccessTokenRecord> | undefined>;
  touchAccessTokens(stamps: readonly UsageStamp[]): Promise<void>;

  /** Records a signed-out session until `expiresAt`, forgetting those whose tokens are past `now`. */
  signOutSession(id: string, expiresAt: string, now: string): Promise<void>;
  isSessionSignedOut(id: string): Promise<boolean>;

  appendAuditEvent(event: AuditEventRecord): Promise<void>;
  /** Newest first; `beforeSeq` continues a listing after its last event. */
  listAuditEvents(
    workspaceId: string,
    options: { beforeSeq?: number; limit: number },
  ): Promise<StoredAuditEvent[]>;

  /** The stored value, or `value` stored now if there was none: the first writer wins, every node agrees. */
  getOrCreateSetting(name: string, value: string): Promise<string>;

  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
