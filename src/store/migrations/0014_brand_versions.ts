import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;
type Row = Record<string, unknown>;

/** The brand's sections when this migration was written: a backfilled version "changed" all of them. */
const ALL_SECTIONS = [
  'name',
  'description',
  'voice',
  'colors',
  'fonts',
  'social',
  'knowledge',
  'assets',
  'skills',
  'preferences',
];

/** How many brands the backfill reads at a time. */
const BATCH = 200;

const actorTypes = sql`actor_type in ('user', 'api_key', 'operator', 'system')`;

/**
 * Brand versions and review (docs/brand-versions.md). `brand_versions` keeps every version of every brand,
 * immutable: the whole brand context as it was (JSON text, the read operation's object, server-set fields
 * included) with who made it, when, a note and the sections it changed. `brand_drafts` holds a workspace's one
 * unpublished draft while review is on. `workspaces.brand_review` says whether it is (`off` by default), and
 * `campaigns.brand_version` which published version a campaign draft was written against (null before this).
 * Every existing brand gets its current version recorded, by the service and without a note. Deleting a
 * workspace deletes its versions and its draft.
 */
export async function up(db: AnyDatabase): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  const timestamp = postgres ? 'timestamptz' : 'text';
  // json, not jsonb, as in 0001: a version is kept as the exact text it was, key order included.
  const json = postgres ? 'json' : 'text';
  // No table is locked for the backfill: nodes of the earlier release record no versions anyway, so while
  // they run beside this one their changes leave gaps in the history (a pinned read of one: 404), nothing
  // worse. Locking brand_profiles as well as altering workspaces could deadlock with their writes.

  await db.schema
    .alterTable('workspaces')
    .addColumn('brand_review', 'text', (c) =>
      c
        .notNull()
        .defaultTo('off')
        .check(sql`brand_review in ('off', 'required')`),
    )
    .execute();

  await db.schema.alterTable('campaigns').addColumn('brand_version', 'integer').execute();

  // Listed newest first by the primary key (workspace_id, version), read backwards. The author's id and
  // email are kept as the audit log keeps them: no foreign key, the history outlives accounts and keys.
  await db.schema
    .createTable('brand_versions')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull().check(sql`version > 0`))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull().check(actorTypes))
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('note', 'text')
    // JSON: an array of section names.
    .addColumn('sections_changed', json, (c) => c.notNull())
    // JSON: the whole brand context of this version.
    .addColumn('brand', json, (c) => c.notNull())
    .addPrimaryKeyConstraint('brand_versions_pk', ['workspace_id', 'version'])
    .execute();

  await db.schema
    .createTable('brand_drafts')
    .addColumn('workspace_id', 'text', (c) => c.primaryKey().references('workspaces.id').onDelete('cascade'))
    // JSON: the draft's brand content (the document, without the server-set fields).
    .addColumn('content', json, (c) => c.notNull())
    .addColumn('base_version', 'integer', (c) => c.notNull())
    .addColumn('revision', 'integer', (c) => c.notNull())
    .addColumn('actor_type', 'text', (c) => c.notNull().check(actorTypes))
    .addColumn('actor_id', 'text')
    .addColumn('actor_email', 'text')
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();

  await backfill(db);
}

/** Each brand's current version, as the read operation serves it today. */
async function backfill(db: AnyDatabase): Promise<void> {
  let after = '';
  for (;;) {
    const profiles = (await db
      .selectFrom('brand_profiles')
      .innerJoin('workspaces', 'workspaces.id', 'brand_profiles.workspace_id')
      .selectAll('brand_profiles')
      .select('workspaces.name')
      .where('brand_profiles.workspace_id', '>', after)
      .orderBy('brand_profiles.workspace_id')
      .limit(BATCH)
      .execute()) as Row[];
    if (profiles.length === 0) return;
    const ids = profiles.map((profile) => String(profile.workspace_id));
    const lists = async (table: string) => {
      const rows = (await db
        .selectFrom(table)
        .selectAll()
        .where('workspace_id', 'in', ids)
        .orderBy('workspace_id')
        .orderBy('position')
        .execute()) as Row[];
      const byWorkspace = new Map<string, Row[]>();
      for (const row of rows) {
        const id = String(row.workspace_id);
        byWorkspace.set(id, [...(byWorkspace.get(id) ?? []), row]);
      }
      return byWorkspace;
    };
    const [knowledge, assets, skills] = [
      await lists('knowledge_entries'),
      await lists('assets'),
      await lists('skills'),
    ];
    await db
      .insertInto('brand_versions')
      .values(
        profiles.map((profile) => {
          const id = String(profile.workspace_id);
          const brand = {
            workspace_id: id,
            name: profile.name,
            description: profile.description,
            voice: profile.voice,
            colors: jsonValue(profile.colors),
            fonts: jsonValue(profile.fonts),
            social: jsonValue(profile.social),
            knowledge: (knowledge.get(id) ?? []).map((row) => ({
              id: row.id,
              kind: row.kind,
              title: row.title,
              content: row.content,
              tags: jsonValue(row.tags),
              updated_at: isoTimestamp(row.updated_at),
            })),
            assets: (assets.get(id) ?? []).map((row) => ({
              id: row.id,
              kind: row.kind,
              name: row.name,
              url: row.url,
              mime_type: row.mime_type,
              width: row.width,
              height: row.height,
              bytes: row.bytes === null ? null : Number(row.bytes),
              variant: row.variant,
              background: row.background,
              alt: row.alt,
            })),
            skills: (skills.get(id) ?? []).map((row) => ({
              id: row.id,
              name: row.name,
              description: row.description,
              instructions: row.instructions,
            })),
            preferences: jsonValue(profile.preferences),
            updated_at: isoTimestamp(profile.updated_at),
            version: Number(profile.version),
          };
          return {
            workspace_id: id,
            version: Number(profile.version),
            created_at: profile.updated_at,
            actor_type: 'system',
            actor_id: null,
            actor_email: null,
            note: null,
            sections_changed: JSON.stringify(ALL_SECTIONS),
            brand: JSON.stringify(brand),
          };
        }),
      )
      .execute();
    after = ids.at(-1) ?? after;
  }
}

/** A JSON column's value: text (SQLite, and the service's PostgreSQL pool), or parsed (a plain pg pool). */
function jsonValue(value: unknown): unknown {
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** A timestamp as the service reads it back: ISO text (a plain pg pool parses them into Dates). */
function isoTimestamp(value: unknown): unknown {
  return value instanceof Date ? value.toISOString() : value;
}
