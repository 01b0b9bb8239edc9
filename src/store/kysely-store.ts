import type { Kysely, Selectable } from 'kysely';
import type { Asset, BrandContext, KnowledgeEntry, Skill } from '../core/brand-context.js';
import type { ChangeHub } from './change-feed.js';
import type { Database } from './schema.js';
import type {
  AccessTokenRecord,
  ActorType,
  ApiKeyRecord,
  AuditEventRecord,
  BrandContent,
  BrandKeyRecord,
  CampaignCursor,
  CampaignRecord,
  CampaignStatus,
  CampaignUpdate,
  KeyRecord,
  MembershipRecord,
  Revocation,
  Role,
  StoredAuditEvent,
  Store,
  UsageStamp,
  UserRecord,
  WorkspaceMembership,
  WorkspaceRecord,
} from './store.js';

/** What differs between SQLite and PostgreSQL once Kysely has smoothed over the SQL. */
export interface Backend {
  readonly kind: Store['kind'];
  readonly hub: ChangeHub;
  /** Runs inside a write transaction, so other processes learn of the change only if it commits. */
  announce(db: Kysely<Database>, workspaceId: string): Promise<void>;
  ping(db: Kysely<Database>): Promise<void>;
  close(): Promise<void>;
}

type KeyTable = 'brand_keys' | 'api_keys';

function toKey(row: Selectable<Database[KeyTable]>): KeyRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    keyHash: row.key_hash,
    prefix: row.prefix,
    last4: row.last4,
    createdBy: row.created_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function toCampaign(row: Selectable<Database['campaigns']>): CampaignRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    subject: row.subject,
    preheader: row.preheader,
    bodyHtml: row.body_html,
    bodyText: row.body_text,
    status: row.status as CampaignStatus,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toUser(row: Selectable<Database['users']>): UserRecord {
  return { id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at };
}

function toWorkspace(row: Selectable<Database['workspaces']>): WorkspaceRecord {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}

function toAccessToken(row: Selectable<Database['access_tokens']>): AccessTokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

function toMembership(row: Selectable<Database['memberships']>): MembershipRecord {
  return {
    workspaceId: row.workspace_id,
    userId: row.user_id,
    role: row.role as Role,
    createdAt: row.created_at,
  };
}

function profileColumns(brand: Omit<BrandContent, 'name'>) {
  return {
    description: brand.description,
    voice: brand.voice,
    colors: JSON.stringify(brand.colors),
    fonts: JSON.stringify(brand.fonts),
    social: JSON.stringify(brand.social),
    preferences: JSON.stringify(brand.preferences),
  };
}

export class KyselyStore implements Store {
  /**
   * @param changed set while this store is bound to a transaction: the workspaces it wrote, announced to
   *   this process once the transaction commits.
   */
  constructor(
    private readonly db: Kysely<Database>,
    private readonly backend: Backend,
    private readonly changed?: Set<string>,
  ) {}

  get kind(): Store['kind'] {
    return this.backend.kind;
  }

  get changes(): ChangeHub {
    return this.backend.hub;
  }

  transaction<T>(work: (store: Store) => Promise<T>): Promise<T> {
    return this.inTransaction(work);
  }

  private async inTransaction<T>(work: (store: KyselyStore) => Promise<T>): Promise<T> {
    if (this.changed) return work(this);
    const changed = new Set<string>();
    const result = await this.db
      .transaction()
      .execute((trx) => work(new KyselyStore(trx, this.backend, changed)));
    for (const workspaceId of changed) this.backend.hub.emit({ workspaceId });
    return result;
  }

  /** One write in its own transaction (or the caller's), announced as a change to `workspaceId`. */
  private write<T>(workspaceId: string, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
    return this.inTransaction(async (store) => {
      const result = await work(store.db);
      store.changed?.add(workspaceId);
      await this.backend.announce(store.db, workspaceId);
      return result;
    });
  }

  async createUser(user: UserRecord): Promise<void> {
    await this.db
      .insertInto('users')
      .values({
        id: user.id,
        email: user.email,
        password_hash: user.passwordHash,
        created_at: user.createdAt,
      })
      .execute();
  }

  async getUser(id: string): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.db
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('id', '=', userId)
      .execute();
  }

  async findUserByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await this.db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
    return row && toUser(row);
  }

  createWorkspace(workspace: WorkspaceRecord, brand: Omit<BrandContent, 'name'>): Promise<void> {
    return this.write(workspace.id, async (db) => {
      await db
        .insertInto('workspaces')
        .values({ id: workspace.id, name: workspace.name, created_at: workspace.createdAt })
        .execute();
      await db
        .insertInto('brand_profiles')
        .values({
          workspace_id: workspace.id,
          ...profileColumns(brand),
          version: 1,
          updated_at: workspace.createdAt,
        })
        .execute();
      await insertEntries(db, workspace.id, brand);
    });
  }

  async getWorkspace(id: string): Promise<WorkspaceRecord | undefined> {
    const row = await this.db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toWorkspace(row);
  }

  async listWorkspaces(): Promise<WorkspaceRecord[]> {
    const rows = await this.db
      .selectFrom('workspaces')
      .selectAll()
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWorkspace);
  }

  async addMember(membership: MembershipRecord): Promise<void> {
    await this.db
      .insertInto('memberships')
      .values({
        workspace_id: membership.workspaceId,
        user_id: membership.userId,
        role: membership.role,
        created_at: membership.createdAt,
      })
      .execute();
  }

  async listWorkspacesOf(userId: string): Promise<WorkspaceMembership[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('workspaces', 'workspaces.id', 'memberships.workspace_id')
      .selectAll('workspaces')
      .select('memberships.role')
      .where('memberships.user_id', '=', userId)
      .orderBy('workspaces.created_at')
      .orderBy('workspaces.id')
      .execute();
    return rows.map((row) => ({ ...toWorkspace(row), role: row.role as Role }));
  }

  async getMembership(workspaceId: string, userId: string): Promise<MembershipRecord | undefined> {
    const row = await this.db
      .selectFrom('memberships')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return row && toMembership(row);
  }

  async listMembers(workspaceId: string): Promise<(MembershipRecord & { email: string })[]> {
    const rows = await this.db
      .selectFrom('memberships')
      .innerJoin('users', 'users.id', 'memberships.user_id')
      .selectAll('memberships')
      .select('users.email')
      .where('memberships.workspace_id', '=', workspaceId)
      .orderBy('memberships.created_at')
      .orderBy('memberships.user_id')
      .execute();
    return rows.map((row) => ({ ...toMembership(row), email: row.email }));
  }

  async removeMember(workspaceId: string, userId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('memberships')
      .where('workspace_id', '=', workspaceId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }

  async getBrand(workspaceId: string): Promise<BrandContext | undefined> {
    const profile = await this.db
      .selectFrom('brand_profiles')
      .innerJoin('workspaces', 'workspaces.id', 'brand_profiles.workspace_id')
      .selectAll('brand_profiles')
      .select('workspaces.name')
      .where('brand_profiles.workspace_id', '=', workspaceId)
      .executeTakeFirst();
    if (!profile) return undefined;
    const [knowledge, assets, skills] = await Promise.all([
      this.db
        .selectFrom('knowledge_entries')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('position')
        .execute(),
      this.db
        .selectFrom('assets')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('position')
        .execute(),
      this.db
        .selectFrom('skills')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('position')
        .execute(),
    ]);
    return {
      workspace_id: workspaceId,
      name: profile.name,
      description: profile.description,
      voice: profile.voice,
      colors: JSON.parse(profile.colors) as BrandContext['colors'],
      fonts: JSON.parse(profile.fonts) as BrandContext['fonts'],
      social: JSON.parse(profile.social) as BrandContext['social'],
      knowledge: knowledge.map((row): KnowledgeEntry => ({
        id: row.id,
        kind: row.kind as KnowledgeEntry['kind'],
        title: row.title,
        content: row.content,
        tags: JSON.parse(row.tags) as string[],
        updated_at: row.updated_at,
      })),
      assets: assets.map((row): Asset => ({
        id: row.id,
        kind: row.kind as Asset['kind'],
        name: row.name,
        url: row.url,
        mime_type: row.mime_type,
        width: row.width,
        height: row.height,
        bytes: row.bytes,
        variant: row.variant,
        background: row.background,
        alt: row.alt,
      })),
      skills: skills.map((row): Skill => ({
        id: row.id,
        name: row.name,
        description: row.description,
        instructions: row.instructions,
      })),
      preferences: JSON.parse(profile.preferences) as BrandContext['preferences'],
      updated_at: profile.updated_at,
      version: profile.version,
    };
  }

  async replaceBrand(workspaceId: string, content: BrandContent, updatedAt: string): Promise<BrandContext> {
    await this.write(workspaceId, async (db) => {
      await db.updateTable('workspaces').set({ name: content.name }).where('id', '=', workspaceId).execute();
      await db
        .updateTable('brand_profiles')
        .set((eb) => ({ ...profileColumns(content), version: eb('version', '+', 1), updated_at: updatedAt }))
        .where('workspace_id', '=', workspaceId)
        .execute();
      await db.deleteFrom('knowledge_entries').where('workspace_id', '=', workspaceId).execute();
      await db.deleteFrom('assets').where('workspace_id', '=', workspaceId).execute();
      await db.deleteFrom('skills').where('workspace_id', '=', workspaceId).execute();
      await insertEntries(db, workspaceId, content);
    });
    const brand = await this.getBrand(workspaceId);
    if (!brand) throw new Error(`brand of ${workspaceId} vanished while being replaced`);
    return brand;
  }

  createBrandKey(key: BrandKeyRecord): Promise<void> {
    return this.insertKey('brand_keys', key);
  }

  findBrandKeyByHash(keyHash: string): Promise<BrandKeyRecord | undefined> {
    return this.findKeyByHash('brand_keys', keyHash);
  }

  listBrandKeys(workspaceId: string): Promise<BrandKeyRecord[]> {
    return this.listKeys('brand_keys', workspaceId);
  }

  revokeBrandKey(
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<BrandKeyRecord> | undefined> {
    return this.revokeKey('brand_keys', workspaceId, keyId, revokedAt);
  }

  touchBrandKeys(stamps: readonly UsageStamp[]): Promise<void> {
    return this.touch('brand_keys', stamps);
  }

  createApiKey(key: ApiKeyRecord): Promise<void> {
    return this.insertKey('api_keys', key);
  }

  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    return this.findKeyByHash('api_keys', keyHash);
  }

  listApiKeys(workspaceId: string): Promise<ApiKeyRecord[]> {
    return this.listKeys('api_keys', workspaceId);
  }

  revokeApiKey(
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<ApiKeyRecord> | undefined> {
    return this.revokeKey('api_keys', workspaceId, keyId, revokedAt);
  }

  touchApiKeys(stamps: readonly UsageStamp[]): Promise<void> {
    return this.touch('api_keys', stamps);
  }

  /**
   * Brand read key writes are announced: the read operation's cache must forget a revoked key at once.
   * Workspace API keys are not in that cache, so their writes evict nothing and notify no one.
   */
  private keyWrite<T>(
    table: KeyTable,
    workspaceId: string,
    work: (db: Kysely<Database>) => Promise<T>,
  ): Promise<T> {
    return table === 'brand_keys'
      ? this.write(workspaceId, work)
      : this.inTransaction((store) => work(store.db));
  }

  private async insertKey(table: KeyTable, key: KeyRecord): Promise<void> {
    await this.keyWrite(table, key.workspaceId, (db) =>
      db
        .insertInto(table)
        .values({
          id: key.id,
          workspace_id: key.workspaceId,
          name: key.name,
          key_hash: key.keyHash,
          prefix: key.prefix,
          last4: key.last4,
          created_by: key.createdBy,
          created_at: key.createdAt,
          expires_at: key.expiresAt,
          revoked_at: key.revokedAt,
          last_used_at: key.lastUsedAt,
        })
        .execute(),
    );
  }

  private async findKeyByHash(table: KeyTable, keyHash: string): Promise<KeyRecord | undefined> {
    const row = await this.db
      .selectFrom(table)
      .selectAll()
      .where('key_hash', '=', keyHash)
      .executeTakeFirst();
    return row && toKey(row);
  }

  private async listKeys(table: KeyTable, workspaceId: string): Promise<KeyRecord[]> {
    const rows = await this.db
      .selectFrom(table)
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  private revokeKey(
    table: KeyTable,
    workspaceId: string,
    keyId: string,
    revokedAt: string,
  ): Promise<Revocation<KeyRecord> | undefined> {
    return this.keyWrite(table, workspaceId, async (db) => {
      const { numUpdatedRows } = await db
        .updateTable(table)
        .set({ revoked_at: revokedAt })
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const row = await db
        .selectFrom(table)
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .where('id', '=', keyId)
        .executeTakeFirst();
      return row && { record: toKey(row), revokedNow: numUpdatedRows > 0n };
    });
  }

  /** Moves `last_used_at` forward only, so nodes flushing in any order agree on the latest use. */
  private async touch(table: KeyTable | 'access_tokens', stamps: readonly UsageStamp[]): Promise<void> {
    for (const { id, usedAt } of stamps) {
      await this.db
        .updateTable(table)
        .set({ last_used_at: usedAt })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', usedAt)]))
        .execute();
    }
  }

  async createCampaign(campaign: CampaignRecord): Promise<void> {
    await this.db
      .insertInto('campaigns')
      .values({
        id: campaign.id,
        workspace_id: campaign.workspaceId,
        name: campaign.name,
        subject: campaign.subject,
        preheader: campaign.preheader,
        body_html: campaign.bodyHtml,
        body_text: campaign.bodyText,
        status: campaign.status,
        version: campaign.version,
        created_at: campaign.createdAt,
        updated_at: campaign.updatedAt,
      })
      .execute();
  }

  async getCampaign(workspaceId: string, id: string): Promise<CampaignRecord | undefined> {
    const row = await this.db
      .selectFrom('campaigns')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toCampaign(row);
  }

  async listCampaigns(
    workspaceId: string,
    options: { status?: CampaignStatus | undefined; after?: CampaignCursor | undefined; limit: number },
  ): Promise<CampaignRecord[]> {
    const { status, after, limit } = options;
    let query = this.db.selectFrom('campaigns').selectAll().where('workspace_id', '=', workspaceId);
    if (status !== undefined) query = query.where('status', '=', status);
    if (after !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb('created_at', '<', after.createdAt),
          eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)]),
        ]),
      );
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toCampaign);
  }

  async updateCampaign(
    workspaceId: string,
    id: string,
    fromStatus: CampaignStatus,
    update: CampaignUpdate,
  ): Promise<CampaignRecord | undefined> {
    // One statement: the status check and the version bump see the same row, whatever runs alongside (on
    // PostgreSQL a concurrent update waits for the row and re-checks the condition on its new version).
    const row = await this.db
      .updateTable('campaigns')
      .set((eb) => ({
        name: update.name,
        subject: update.subject,
        preheader: update.preheader,
        body_html: update.bodyHtml,
        body_text: update.bodyText,
        status: update.status,
        version: eb('version', '+', 1),
        updated_at: update.updatedAt,
      }))
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .where('status', '=', fromStatus)
      .returningAll()
      .executeTakeFirst();
    return row && toCampaign(row);
  }

  async createAccessToken(token: AccessTokenRecord): Promise<void> {
    await this.db
      .insertInto('access_tokens')
      .values({
        id: token.id,
        user_id: token.userId,
        name: token.name,
        created_at: token.createdAt,
        expires_at: token.expiresAt,
        revoked_at: token.revokedAt,
        last_used_at: token.lastUsedAt,
      })
      .execute();
  }

  async getAccessToken(id: string): Promise<AccessTokenRecord | undefined> {
    const row = await this.db.selectFrom('access_tokens').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toAccessToken(row);
  }

  async listAccessTokens(userId: string): Promise<AccessTokenRecord[]> {
    const rows = await this.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toAccessToken);
  }

  async revokeAccessToken(
    userId: string,
    id: string,
    revokedAt: string,
  ): Promise<Revocation<AccessTokenRecord> | undefined> {
    const { numUpdatedRows } = await this.db
      .updateTable('access_tokens')
      .set({ revoked_at: revokedAt })
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    const row = await this.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && { record: toAccessToken(row), revokedNow: numUpdatedRows > 0n };
  }

  touchAccessTokens(stamps: readonly UsageStamp[]): Promise<void> {
    return this.touch('access_tokens', stamps);
  }

  async signOutSession(id: string, expiresAt: string, now: string): Promise<void> {
    await this.inTransaction(async (store) => {
      await store.db.deleteFrom('signed_out_sessions').where('expires_at', '<', now).execute();
      await store.db
        .insertInto('signed_out_sessions')
        .values({ id, expires_at: expiresAt })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    });
  }

  async isSessionSignedOut(id: string): Promise<boolean> {
    const row = await this.db
      .selectFrom('signed_out_sessions')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }

  async appendAuditEvent(event: AuditEventRecord): Promise<void> {
    await this.db
      .insertInto('audit_events')
      .values({
        id: event.id,
        workspace_id: event.workspaceId,
        actor_type: event.actorType,
        actor_id: event.actorId,
        actor_email: event.actorEmail,
        action: event.action,
        target_type: event.targetType,
        target_id: event.targetId,
        details: JSON.stringify(event.details),
        created_at: event.createdAt,
      })
      .execute();
  }

  async listAuditEvents(
    workspaceId: string,
    options: { beforeSeq?: number; limit: number },
  ): Promise<StoredAuditEvent[]> {
    let query = this.db.selectFrom('audit_events').selectAll().where('workspace_id', '=', workspaceId);
    if (options.beforeSeq !== undefined) query = query.where('seq', '<', options.beforeSeq);
    const rows = await query.orderBy('seq', 'desc').limit(options.limit).execute();
    return rows.map((row) => ({
      seq: row.seq,
      id: row.id,
      workspaceId: row.workspace_id,
      actorType: row.actor_type as ActorType,
      actorId: row.actor_id,
      actorEmail: row.actor_email,
      action: row.action,
      targetType: row.target_type,
      targetId: row.target_id,
      details: JSON.parse(row.details) as AuditEventRecord['details'],
      createdAt: row.created_at,
    }));
  }

  async getOrCreateSetting(name: string, value: string): Promise<string> {
    await this.db
      .insertInto('settings')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }

  ping(): Promise<void> {
    return this.backend.ping(this.db);
  }

  async close(): Promise<void> {
    this.backend.hub.stop();
    await this.db.destroy();
    await this.backend.close();
  }
}

async function insertEntries(db: Kysely<Database>, workspaceId: string, brand: Omit<BrandContent, 'name'>) {
  if (brand.knowledge.length > 0) {
    await db
      .insertInto('knowledge_entries')
      .values(
        brand.knowledge.map((entry, position) => ({
          workspace_id: workspaceId,
          position,
          ...entry,
          tags: JSON.stringify(entry.tags),
        })),
      )
      .execute();
  }
  if (brand.assets.length > 0) {
    await db
      .insertInto('assets')
      .values(brand.assets.map((asset, position) => ({ workspace_id: workspaceId, position, ...asset })))
      .execute();
  }
  if (brand.skills.length > 0) {
    await db
      .insertInto('skills')
      .values(brand.skills.map((skill, position) => ({ workspace_id: workspaceId, position, ...skill })))
      .execute();
  }
}
