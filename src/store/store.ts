import type { BrandContext } from '../core/brand-context.js';
import type { ChangeFeed } from './change-feed.js';

export type Role = 'owner' | 'admin' | 'member';

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
  findUserByEmail(email: string): Promise<UserRecord | undefined>;

  /** Creates the workspace with its first brand (version 1); the brand's name is the workspace's. */
  createWorkspace(workspace: WorkspaceRecord, brand: Omit<BrandContent, 'name'>): Promise<void>;
  getWorkspace(id: string): Promise<WorkspaceRecord | undefined>;
  listWorkspaces(): Promise<WorkspaceRecord[]>;
  addMember(membership: MembershipRecord): Promise<void>;
  listMembers(workspaceId: string): Promise<MembershipRecord[]>;

  getBrand(workspaceId: string): Promise<BrandContext | undefined>;
  /** Replaces the whole brand (the name renames the workspace) and returns it with its new version. */
  replaceBrand(workspaceId: string, content: BrandContent, updatedAt: string): Promise<BrandContext>;

  createBrandKey(key: BrandKeyRecord): Promise<void>;
  findBrandKeyByHash(keyHash: string): Promise<BrandKeyRecord | undefined>;
  getBrandKey(workspaceId: string, keyId: string): Promise<BrandKeyRecord | undefined>;
  listBrandKeys(workspaceId: string): Promise<BrandKeyRecord[]>;
  /** Sets `revoked_at` unless already set; returns the key as it now is, or undefined if it does not exist. */
  revokeBrandKey(workspaceId: string, keyId: string, revokedAt: string): Promise<BrandKeyRecord | undefined>;

  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
