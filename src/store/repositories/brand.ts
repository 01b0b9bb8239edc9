import type { Generated, Kysely, Selectable } from 'kysely';
import {
  type Asset,
  BRAND_SECTIONS,
  type BrandContext,
  type BrandSection,
  type KnowledgeEntry,
  type Skill,
  serializeBrandContext,
} from '../../core/brand-context.js';
import type { Database } from '../schema.js';
import type { Session } from '../session.js';
import type {
  ActorType,
  BrandChange,
  BrandContent,
  BrandDraftRecord,
  BrandRepository,
  BrandVersionRecord,
} from '../store.js';

/** A brand's single-valued sections; its name is the workspace's, its lists are tables of their own. */
export interface BrandProfileColumns {
  workspace_id: string;
  description: string;
  voice: string;
  /** JSON text, as are `fonts`, `social`, `preferences` and `rules`. */
  colors: string;
  fonts: string;
  social: string;
  preferences: string;
  /** A list read and written whole (0015_brand_rules), so kept here rather than in a table of its own. */
  rules: Generated<string>;
  version: number;
  updated_at: string;
}

/** The brand's lists, each row at its `position` in the list. */
export interface KnowledgeEntryColumns {
  workspace_id: string;
  id: string;
  position: number;
  kind: KnowledgeEntry['kind'];
  title: string;
  content: string;
  /** JSON text. */
  tags: string;
  updated_at: string;
}

export interface AssetColumns {
  workspace_id: string;
  id: string;
  position: number;
  kind: Asset['kind'];
  name: string;
  url: string;
  mime_type: string | null;
  width: number | null;
  height: number | null;
  bytes: number | null;
  variant: string | null;
  background: string | null;
  alt: string;
}

export interface SkillColumns {
  workspace_id: string;
  id: string;
  position: number;
  name: string;
  description: string;
  instructions: string;
}

/** One immutable version of a brand: its provenance and the whole brand context as it was. */
export interface BrandVersionColumns {
  workspace_id: string;
  version: number;
  created_at: string;
  actor_type: ActorType;
  actor_id: string | null;
  actor_email: string | null;
  note: string | null;
  /** JSON text: an array of section names. */
  sections_changed: string;
  /** JSON text: the brand context of this version, exactly as the read operation served it. */
  brand: string;
}

/** A workspace's one unpublished draft while review is on. */
export interface BrandDraftColumns {
  workspace_id: string;
  /** JSON text: the draft's BrandContent. */
  content: string;
  base_version: number;
  revision: number;
  actor_type: ActorType;
  actor_id: string | null;
  actor_email: string | null;
  updated_at: string;
}

type BrandProfile = Omit<BrandContent, 'name'>;

/** A workspace's first version, when nobody in particular made it (the service creating the workspace). */
export const FIRST_VERSION_CHANGE: BrandChange = {
  actorType: 'system',
  actorId: null,
  actorEmail: null,
  note: null,
  sectionsChanged: [...BRAND_SECTIONS],
};

type VersionListColumns = Omit<BrandVersionColumns, 'brand'>;

function toVersion(row: Selectable<VersionListColumns>): BrandVersionRecord {
  return {
    workspaceId: row.workspace_id,
    version: row.version,
    createdAt: row.created_at,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    note: row.note,
    sectionsChanged: JSON.parse(row.sections_changed) as BrandSection[],
  };
}

function toDraft(row: Selectable<BrandDraftColumns>): BrandDraftRecord {
  // A draft saved before 0015_brand_rules lacks `rules`, the content's last section: none, as for the brand.
  const content = JSON.parse(row.content) as Omit<BrandContent, 'rules'> & { rules?: BrandContent['rules'] };
  return {
    workspaceId: row.workspace_id,
    content: { ...content, rules: content.rules ?? [] },
    baseVersion: row.base_version,
    revision: row.revision,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    updatedAt: row.updated_at,
  };
}

function draftColumns(draft: BrandDraftRecord): Selectable<BrandDraftColumns> {
  return {
    workspace_id: draft.workspaceId,
    content: JSON.stringify(draft.content),
    base_version: draft.baseVersion,
    revision: draft.revision,
    actor_type: draft.actorType,
    actor_id: draft.actorId,
    actor_email: draft.actorEmail,
    updated_at: draft.updatedAt,
  };
}

function profileColumns(brand: BrandProfile) {
  return {
    description: brand.description,
    voice: brand.voice,
    colors: JSON.stringify(brand.colors),
    fonts: JSON.stringify(brand.fonts),
    social: JSON.stringify(brand.social),
    preferences: JSON.stringify(brand.preferences),
    rules: JSON.stringify(brand.rules),
  };
}

function toKnowledgeEntry(row: Selectable<KnowledgeEntryColumns>): KnowledgeEntry {
  return {
    id: row.id,
    kind: row.kind,
    title: row.title,
    content: row.content,
    tags: JSON.parse(row.tags) as string[],
    updated_at: row.updated_at,
  };
}

function toAsset(row: Selectable<AssetColumns>): Asset {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    url: row.url,
    mime_type: row.mime_type,
    width: row.width,
    height: row.height,
    bytes: row.bytes,
    variant: row.variant,
    background: row.background,
    alt: row.alt,
  };
}

function toSkill(row: Selectable<SkillColumns>): Skill {
  return { id: row.id, name: row.name, description: row.description, instructions: row.instructions };
}

async function insertLists(db: Kysely<Database>, workspaceId: string, brand: BrandProfile): Promise<void> {
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

/**
 * A new workspace's first brand (version 1), recorded in its history with `change`: written with the
 * workspace, which cannot exist without it.
 */
export async function insertFirstBrand(
  db: Kysely<Database>,
  workspaceId: string,
  brand: BrandProfile,
  createdAt: string,
  change: BrandChange,
): Promise<void> {
  await db
    .insertInto('brand_profiles')
    .values({ workspace_id: workspaceId, ...profileColumns(brand), version: 1, updated_at: createdAt })
    .execute();
  await insertLists(db, workspaceId, brand);
  await recordVersion(db, workspaceId, createdAt, change);
}

/**
 * Records the brand as the live tables hold it now as a version of its history, and answers it. Read back
 * rather than built from what was written, so a pinned read of the latest version serves the same bytes as the
 * latest read (timestamps as the backend gives them back, keys in the documented order).
 */
async function recordVersion(
  db: Kysely<Database>,
  workspaceId: string,
  createdAt: string,
  change: BrandChange,
): Promise<BrandContext> {
  const brand = await readBrand(db, workspaceId);
  if (!brand) throw new Error(`brand of ${workspaceId} vanished while being written`);
  await db
    .insertInto('brand_versions')
    .values({
      workspace_id: workspaceId,
      version: brand.version,
      created_at: createdAt,
      actor_type: change.actorType,
      actor_id: change.actorId,
      actor_email: change.actorEmail,
      note: change.note,
      sections_changed: JSON.stringify(change.sectionsChanged),
      brand: serializeBrandContext(brand),
    })
    .execute();
  return brand;
}

/** The brand as the live tables hold it: the latest version. */
async function readBrand(db: Kysely<Database>, workspaceId: string): Promise<BrandContext | undefined> {
  const profile = await db
    .selectFrom('brand_profiles')
    .innerJoin('workspaces', 'workspaces.id', 'brand_profiles.workspace_id')
    .selectAll('brand_profiles')
    .select('workspaces.name')
    .where('brand_profiles.workspace_id', '=', workspaceId)
    .executeTakeFirst();
  if (!profile) return undefined;
  const [knowledge, assets, skills] = await Promise.all([
    db
      .selectFrom('knowledge_entries')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('position')
      .execute(),
    db.selectFrom('assets').selectAll().where('workspace_id', '=', workspaceId).orderBy('position').execute(),
    db.selectFrom('skills').selectAll().where('workspace_id', '=', workspaceId).orderBy('position').execute(),
  ]);
  return {
    workspace_id: workspaceId,
    name: profile.name,
    description: profile.description,
    voice: profile.voice,
    colors: JSON.parse(profile.colors) as BrandContext['colors'],
    fonts: JSON.parse(profile.fonts) as BrandContext['fonts'],
    social: JSON.parse(profile.social) as BrandContext['social'],
    knowledge: knowledge.map(toKnowledgeEntry),
    assets: assets.map(toAsset),
    skills: skills.map(toSkill),
    preferences: JSON.parse(profile.preferences) as BrandContext['preferences'],
    rules: JSON.parse(profile.rules) as BrandContext['rules'],
    updated_at: profile.updated_at,
    version: profile.version,
  };
}

/**
 * A recorded version's brand. Versions recorded before a section existed lack it (`rules` before
 * 0015_brand_rules): it is filled with its empty value, in its place in the object's key order, so a pinned
 * read of an old version still has every field.
 */
function versionBrand(text: string): BrandContext {
  const brand = JSON.parse(text) as Omit<BrandContext, 'rules'> & { rules?: BrandContext['rules'] };
  if (brand.rules !== undefined) return brand as BrandContext;
  const { updated_at, version, ...sections } = brand;
  return { ...sections, rules: [], updated_at, version };
}

export type BrandWrite = 'replace';

export class BrandTables implements BrandRepository {
  /** @param announcedWrites the writes announced on the change feed. */
  constructor(
    private readonly session: Session,
    private readonly announcedWrites: readonly BrandWrite[],
  ) {}

  get(workspaceId: string): Promise<BrandContext | undefined> {
    return readBrand(this.session.db, workspaceId);
  }

  async replace(
    workspaceId: string,
    content: BrandContent,
    updatedAt: string,
    change: BrandChange,
  ): Promise<BrandContext> {
    const brand = await this.write(workspaceId, undefined, content, updatedAt, change);
    if (!brand) throw new Error(`brand of ${workspaceId} vanished while being replaced`);
    return brand;
  }

  replaceAtVersion(
    workspaceId: string,
    version: number,
    content: BrandContent,
    updatedAt: string,
    change: BrandChange,
  ): Promise<BrandContext | undefined> {
    return this.write(workspaceId, version, content, updatedAt, change);
  }

  async listVersions(
    workspaceId: string,
    page: { before?: number; limit: number },
  ): Promise<BrandVersionRecord[]> {
    const { before, limit } = page;
    const rows = await this.session.db
      .selectFrom('brand_versions')
      .select([
        'workspace_id',
        'version',
        'created_at',
        'actor_type',
        'actor_id',
        'actor_email',
        'note',
        'sections_changed',
      ])
      .where('workspace_id', '=', workspaceId)
      .$if(before !== undefined, (query) => query.where('version', '<', before ?? 0))
      .orderBy('version', 'desc')
      .limit(limit)
      .execute();
    return rows.map(toVersion);
  }

  async getVersion(
    workspaceId: string,
    version: number,
  ): Promise<{ record: BrandVersionRecord; brand: BrandContext } | undefined> {
    const row = await this.session.db
      .selectFrom('brand_versions')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('version', '=', version)
      .executeTakeFirst();
    return row && { record: toVersion(row), brand: versionBrand(row.brand) };
  }

  async getDraft(workspaceId: string): Promise<BrandDraftRecord | undefined> {
    const row = await this.session.db
      .selectFrom('brand_drafts')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirst();
    return row && toDraft(row);
  }

  /**
   * Each case is one statement, so the revision check and the write see the same row: on PostgreSQL a
   * concurrent save waits for the row's lock, then re-checks the revision (or finds the conflicting insert).
   */
  async saveDraft(draft: BrandDraftRecord, expectedRevision: number | null | undefined): Promise<boolean> {
    const { workspace_id: workspaceId, ...changes } = draftColumns(draft);
    const { db } = this.session;
    if (typeof expectedRevision === 'number') {
      const result = await db
        .updateTable('brand_drafts')
        .set(changes)
        .where('workspace_id', '=', workspaceId)
        .where('revision', '=', expectedRevision)
        .executeTakeFirst();
      return result.numUpdatedRows > 0n;
    }
    const result = await db
      .insertInto('brand_drafts')
      .values(draftColumns(draft))
      .onConflict((conflict) =>
        expectedRevision === null
          ? conflict.column('workspace_id').doNothing()
          : conflict.column('workspace_id').doUpdateSet(changes),
      )
      .executeTakeFirst();
    return (result.numInsertedOrUpdatedRows ?? 0n) > 0n;
  }

  /** One statement: of two deletes at once, PostgreSQL lets the second find the row gone (0 rows). */
  async takeDraft(workspaceId: string, revision?: number): Promise<BrandDraftRecord | undefined> {
    const row = await this.session.db
      .deleteFrom('brand_drafts')
      .where('workspace_id', '=', workspaceId)
      .$if(revision !== undefined, (query) => query.where('revision', '=', revision ?? 0))
      .returningAll()
      .executeTakeFirst();
    return row && toDraft(row);
  }

  /**
   * The profile's row is updated first, and with `version` only where it still holds that version: under
   * PostgreSQL's read committed, a concurrent writer waits for this row's lock and then finds the version
   * moved on, so it updates nothing (SQLite runs one write transaction at a time). Nothing else is written
   * then. The new version is recorded in the history in the same transaction.
   */
  private async write(
    workspaceId: string,
    version: number | undefined,
    content: BrandContent,
    updatedAt: string,
    change: BrandChange,
  ): Promise<BrandContext | undefined> {
    const announce = this.announcedWrites.includes('replace') ? workspaceId : undefined;
    return this.session.transaction(async (session) => {
      const profile = await session.db
        .updateTable('brand_profiles')
        .set((eb) => ({ ...profileColumns(content), version: eb('version', '+', 1), updated_at: updatedAt }))
        .where('workspace_id', '=', workspaceId)
        .$if(version !== undefined, (query) => query.where('version', '=', version ?? 0))
        .executeTakeFirst();
      if (profile.numUpdatedRows === 0n) return undefined;
      return session.write(announce, async (db) => {
        await db
          .updateTable('workspaces')
          .set({ name: content.name })
          .where('id', '=', workspaceId)
          .execute();
        await db.deleteFrom('knowledge_entries').where('workspace_id', '=', workspaceId).execute();
        await db.deleteFrom('assets').where('workspace_id', '=', workspaceId).execute();
        await db.deleteFrom('skills').where('workspace_id', '=', workspaceId).execute();
        await insertLists(db, workspaceId, content);
        return recordVersion(db, workspaceId, updatedAt, change);
      });
    });
  }
}
