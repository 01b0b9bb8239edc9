import type { Kysely, Selectable } from 'kysely';
import type { Asset, BrandContext, KnowledgeEntry, Skill } from '../../core/brand-context.js';
import type { Database } from '../schema.js';
import type { Session } from '../session.js';
import type { BrandContent, BrandRepository } from '../store.js';

/** A brand's single-valued sections; its name is the workspace's, its lists are tables of their own. */
export interface BrandProfileColumns {
  workspace_id: string;
  description: string;
  voice: string;
  /** JSON text, as are `fonts`, `social` and `preferences`. */
  colors: string;
  fonts: string;
  social: string;
  preferences: string;
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

type BrandProfile = Omit<BrandContent, 'name'>;

function profileColumns(brand: BrandProfile) {
  return {
    description: brand.description,
    voice: brand.voice,
    colors: JSON.stringify(brand.colors),
    fonts: JSON.stringify(brand.fonts),
    social: JSON.stringify(brand.social),
    preferences: JSON.stringify(brand.preferences),
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

/** A new workspace's first brand (version 1): written with the workspace, which cannot exist without it. */
export async function insertFirstBrand(
  db: Kysely<Database>,
  workspaceId: string,
  brand: BrandProfile,
  createdAt: string,
): Promise<void> {
  await db
    .insertInto('brand_profiles')
    .values({ workspace_id: workspaceId, ...profileColumns(brand), version: 1, updated_at: createdAt })
    .execute();
  await insertLists(db, workspaceId, brand);
}

export type BrandWrite = 'replace';

export class BrandTables implements BrandRepository {
  /** @param announcedWrites the writes announced on the change feed. */
  constructor(
    private readonly session: Session,
    private readonly announcedWrites: readonly BrandWrite[],
  ) {}

  async get(workspaceId: string): Promise<BrandContext | undefined> {
    const { db } = this.session;
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
      db
        .selectFrom('assets')
        .selectAll()
        .where('workspace_id', '=', workspaceId)
        .orderBy('position')
        .execute(),
      db
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
      knowledge: knowledge.map(toKnowledgeEntry),
      assets: assets.map(toAsset),
      skills: skills.map(toSkill),
      preferences: JSON.parse(profile.preferences) as BrandContext['preferences'],
      updated_at: profile.updated_at,
      version: profile.version,
    };
  }

  async replace(workspaceId: string, content: BrandContent, updatedAt: string): Promise<BrandContext> {
    const brand = await this.write(workspaceId, undefined, content, updatedAt);
    if (!brand) throw new Error(`brand of ${workspaceId} vanished while being replaced`);
    return brand;
  }

  replaceAtVersion(
    workspaceId: string,
    version: number,
    content: BrandContent,
    updatedAt: string,
  ): Promise<BrandContext | undefined> {
    return this.write(workspaceId, version, content, updatedAt);
  }

  /**
   * The profile's row is updated first, and with `version` only where it still holds that version: under
   * PostgreSQL's read committed, a concurrent writer waits for this row's lock and then finds the version
   * moved on, so it updates nothing (SQLite runs one write transaction at a time). Nothing else is written then.
   */
  private async write(
    workspaceId: string,
    version: number | undefined,
    content: BrandContent,
    updatedAt: string,
  ): Promise<BrandContext | undefined> {
    const announce = this.announcedWrites.includes('replace') ? workspaceId : undefined;
    const written = await this.session.transaction(async (session) => {
      const profile = await session.db
        .updateTable('brand_profiles')
        .set((eb) => ({ ...profileColumns(content), version: eb('version', '+', 1), updated_at: updatedAt }))
        .where('workspace_id', '=', workspaceId)
        .$if(version !== undefined, (query) => query.where('version', '=', version ?? 0))
        .executeTakeFirst();
      if (profile.numUpdatedRows === 0n) return false;
      await session.write(announce, async (db) => {
        await db
          .updateTable('workspaces')
          .set({ name: content.name })
          .where('id', '=', workspaceId)
          .execute();
        await db.deleteFrom('knowledge_entries').where('workspace_id', '=', workspaceId).execute();
        await db.deleteFrom('assets').where('workspace_id', '=', workspaceId).execute();
        await db.deleteFrom('skills').where('workspace_id', '=', workspaceId).execute();
        await insertLists(db, workspaceId, content);
      });
      return true;
    });
    return written ? this.get(workspaceId) : undefined;
  }
}
