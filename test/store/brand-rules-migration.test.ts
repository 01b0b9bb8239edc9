import { afterAll, beforeAll, expect, it } from 'vitest';
import { BRAND_SECTIONS, type BrandContext, emptyBrand } from '../../src/core/brand-context.js';
import { openStore } from '../../src/store/open-store.js';
import { BRAND_CONTEXT_KEY_ORDER } from '#test/support/fixtures/brand-agent.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { migrateTo, oldDatabase } from '#test/support/migrations.js';

/** The last migration before brands had rules (0015). */
const BEFORE = '0014_brand_versions';
const CREATED = '2026-11-20T10:00:00.000Z';
const WORKSPACE = 'ws_r0001';

/** A brand context as the release before rules recorded it: every section but `rules`. */
function oldBrand(version: number): Omit<BrandContext, 'rules'> {
  const { rules: _rules, ...empty } = emptyBrand();
  return {
    workspace_id: WORKSPACE,
    name: 'Before rules',
    ...empty,
    voice: `Version ${String(version)}.`,
    updated_at: CREATED,
    version,
  };
}

describeEachBackend('Migrating brands to rules (0015)', (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await backend.create();
    const db = oldDatabase(database);
    try {
      await migrateTo(db, BEFORE);
      await db
        .insertInto('workspaces')
        .values({ id: WORKSPACE, name: 'Before rules', created_at: CREATED })
        .execute();
      const { knowledge: _k, assets: _a, skills: _s, ...profile } = oldBrand(2);
      await db
        .insertInto('brand_profiles')
        .values({
          workspace_id: WORKSPACE,
          description: profile.description,
          voice: profile.voice,
          colors: JSON.stringify(profile.colors),
          fonts: JSON.stringify(profile.fonts),
          social: JSON.stringify(profile.social),
          preferences: JSON.stringify(profile.preferences),
          version: 2,
          updated_at: CREATED,
        })
        .execute();
      const record = {
        workspace_id: WORKSPACE,
        created_at: CREATED,
        actor_type: 'system',
        actor_id: null,
        actor_email: null,
        note: null,
      };
      await db
        .insertInto('brand_versions')
        .values(
          [1, 2].map((version) => ({
            ...record,
            version,
            sections_changed: JSON.stringify(BRAND_SECTIONS.filter((section) => section !== 'rules')),
            brand: JSON.stringify(oldBrand(version)),
          })),
        )
        .execute();
      const { workspace_id: _w, updated_at: _u, version: _v, ...content } = oldBrand(2);
      await db
        .insertInto('brand_drafts')
        .values({
          workspace_id: WORKSPACE,
          content: JSON.stringify({ ...content, voice: 'Drafted.' }),
          base_version: 2,
          revision: 1,
          actor_type: 'system',
          actor_id: null,
          actor_email: null,
          updated_at: CREATED,
        })
        .execute();
    } finally {
      await db.destroy();
    }
  });

  afterAll(async () => {
    await database.drop();
  });

  it('gives an existing brand no rules, and reads its old versions and draft with none, every key in its place', async () => {
    const store = await openStore(database.config);
    try {
      const latest = await store.brand.get(WORKSPACE);
      expect(latest?.rules).toEqual([]);
      expect(Object.keys(latest ?? {})).toEqual(BRAND_CONTEXT_KEY_ORDER);
      const version = await store.brand.getVersion(WORKSPACE, 2);
      expect(Object.keys(version?.brand ?? {})).toEqual(BRAND_CONTEXT_KEY_ORDER);
      // A pinned read of the latest version serves the same bytes as the latest read.
      expect(JSON.stringify(version?.brand)).toBe(JSON.stringify(latest));
      expect((await store.brand.getVersion(WORKSPACE, 1))?.brand).toEqual({ ...oldBrand(1), rules: [] });
      const draft = await store.brand.getDraft(WORKSPACE);
      expect(draft?.content.rules).toEqual([]);
      expect(draft?.content.voice).toBe('Drafted.');
    } finally {
      await store.close();
    }
  });

  it('stores rules from then on, in the brand and its versions, and keeps the old versions as they were', async () => {
    const store = await openStore(database.config);
    try {
      const current = await store.brand.get(WORKSPACE);
      if (!current) throw new Error('migrated brand missing');
      const { workspace_id: _id, updated_at: _at, version: _version, ...content } = current;
      const rules: BrandContext['rules'] = [
        { id: 'rl_1', kind: 'banned_term', value: 'synergy', message: '', severity: 'error' },
        {
          id: 'rl_2',
          kind: 'preferred_term',
          value: { use: 'you', instead_of: ['guys'] },
          message: 'Avoid gendered greetings.',
          severity: 'warning',
        },
        { id: 'rl_3', kind: 'palette_only', value: null, message: '', severity: 'error' },
      ];
      const next = await store.brand.replace(WORKSPACE, { ...content, rules }, CREATED, {
        actorType: 'operator',
        actorId: null,
        actorEmail: null,
        note: null,
        sectionsChanged: ['rules'],
      });
      expect(next.version).toBe(3);
      expect(next.rules).toEqual(rules);
      expect((await store.brand.get(WORKSPACE))?.rules).toEqual(rules);
      expect((await store.brand.getVersion(WORKSPACE, 3))?.brand).toEqual(next);
      expect((await store.brand.getVersion(WORKSPACE, 2))?.brand.rules).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
