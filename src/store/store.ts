import type { BrandContext } from '../core/brand-context.js';
import type { ChangeFeed } from './change-feed.js';

import type { Role } from '../core/roles.js';

export type { Role };

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

export interface BrandKeyRecord {
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

export interface AuditEventRecord {
  id: string;
  workspaceId: string | null;
  /** Null for operator actions taken through the CLI. */
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

  createAccessToken(token: AccessTokenRecord): Promise<void>;
  getAccessToken(id: string): Promise<AccessTokenRecord | undefined>;
  listAccessTokens(userId: string): Promise<AccessTokenRecord[]>;
  revokeAccessToken(
    userId: string,
    id: string,
    revokedAt: string,
  ): Promise<Revocation<AccessTokenRecord> | undefined>;
  touchAccessTokens(stamps: readonly UsageStamp[]): Promise<void>;

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
