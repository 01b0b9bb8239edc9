import { afterAll, beforeAll, expect, it } from 'vitest';
import { BRAND_SECTIONS, emptyBrand } from '../../src/core/brand-context.js';
import { openStore } from '../../src/store/open-store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { migrateTo, oldDatabase } from '#test/support/migrations.js';

/** The last migration before brands had versions (0014). */
const BEFORE = '0013_oauth';
const CREATED = '2026-11-20T10:00:00.000Z';
const UPDATED = '2026-11-21T09:30:00.000Z';

/**
 * The service migrates through its own driver settings (timestamps and JSON as text); the suite also runs the
 * migration through a plain driver (Dates and parsed JSON on PostgreSQL), which must record the same bytes.
 */
for (const migrator of ['service', 'plain driver'] as const)
  describeEachBackend(`Migrating brands to versions (0014), by the ${migrator}`, (backend) => {
    let database: TestDatabase;

    beforeAll(async () => {
      database = await backend.create();
      const db = oldDatabase(database);
      try {
        await migrateTo(db, BEFORE);
        // More workspaces than the backfill reads at once, so that it pages.
        const ids = Array.from({ length: 205 }, (_, n) => `ws_m${String(n).padStart(4, '0')}`);
        await db
          .insertInto('workspaces')
          .values(ids.map((id) => ({ id, name: `Workspace ${id}`, created_at: CREATED })))
          .execute();
        const empty = emptyBrand();
        await db
          .insertInto('brand_profiles')
          .values(
            ids.map((id, n) => ({
              workspace_id: id,
              description: n === 0 ? 'Described "with" ünïcode' : '',
              voice: n === 0 ? 'Plain.' : '',
              colors: JSON.stringify(n === 0 ? { ...empty.colors, primary: '#112233' } : empty.colors),
              fonts: JSON.stringify(empty.fonts),
              social: JSON.stringify(n === 0 ? { website: 'https://example.com' } : empty.social),
              preferences: JSON.stringify(n === 0 ? { z: 1, a: [true, null] } : empty.preferences),
              version: n === 0 ? 7 : 1,
              updated_at: n === 0 ? UPDATED : CREATED,
            })),
          )
          .execute();
        await db
          .insertInto('knowledge_entries')
          .values([
            {
              workspace_id: 'ws_m0000',
              id: 'kb_2',
              position: 0,
              kind: 'guideline',
              title: 'First',
              content: 'x',
              tags: '["a","b"]',
              updated_at: UPDATED,
            },
            {
              workspace_id: 'ws_m0000',
              id: 'kb_1',
              position: 1,
              kind: 'fact',
              title: 'Second',
              content: '',
              tags: '[]',
              updated_at: CREATED,
            },
          ])
          .execute();
        await db
          .insertInto('assets')
          .values({
            workspace_id: 'ws_m0000',
            id: 'as_1',
            position: 0,
            kind: 'logo',
            name: 'Logo',
            url: 'https://example.com/logo.svg',
            mime_type: 'image/svg+xml',
            width: 10,
            height: 20,
            bytes: 5_000_000_000,
            variant: null,
            background: 'light',
            alt: '',
          })
          .execute();
        await db
          .insertInto('skills')
          .values({
            workspace_id: 'ws_m0000',
            id: 'sk_1',
            position: 0,
            name: 'Skill',
            description: '',
            instructions: 'Do it.',
          })
          .execute();
        await db
          .insertInto('campaigns')
          .values({
            id: 'cmp_old',
            workspace_id: 'ws_m0000',
            name: 'Old',
            subject: 'S',
            preheader: '',
            body_html: '',
            body_text: '',
            status: 'draft',
            version: 1,
            created_at: CREATED,
            updated_at: CREATED,
          })
          .execute();
        if (migrator === 'plain driver') await migrateTo(db, '0014_brand_versions');
      } finally {
        await db.destroy();
      }
    });

    afterAll(async () => {
      await database.drop();
    });

    it('records every brand at its current version, exactly as the read operation serves it, by the service', async () => {
      const store = await openStore(database.config);
      try {
        const latest = await store.brand.get('ws_m0000');
        expect(latest?.version).toBe(7);
        expect(latest?.knowledge.map((entry) => entry.id)).toEqual(['kb_2', 'kb_1']);
        const version = await store.brand.getVersion('ws_m0000', 7);
        expect(JSON.stringify(version?.brand)).toBe(JSON.stringify(latest));
        expect(version?.record).toEqual({
          workspaceId: 'ws_m0000',
          version: 7,
          createdAt: UPDATED,
          actorType: 'system',
          actorId: null,
          actorEmail: null,
          note: null,
          // Every section the brand had then: rules came later (0015).
          sectionsChanged: BRAND_SECTIONS.filter((section) => section !== 'rules'),
        });
        // Only the current version: the earlier ones were never kept.
        expect((await store.brand.listVersions('ws_m0000', { limit: 10 })).map((r) => r.version)).toEqual([
          7,
        ]);

        for (const id of ['ws_m0001', 'ws_m0199', 'ws_m0204']) {
          const brand = await store.brand.get(id);
          expect((await store.brand.getVersion(id, 1))?.brand).toEqual(brand);
        }
      } finally {
        await store.close();
      }
    });

    it('turns review off everywhere, leaves old campaigns unpinned, and goes on numbering from the current version', async () => {
      const store = await openStore(database.config);
      try {
        expect((await store.workspaces.get('ws_m0000'))?.brandReview).toBe('off');
        expect((await store.campaigns.get('ws_m0000', 'cmp_old'))?.brandVersion).toBeNull();
        const current = await store.brand.get('ws_m0000');
        if (!current) throw new Error('migrated brand missing');
        const { workspace_id: _id, updated_at: _at, version: _version, ...content } = current;
        const next = await store.brand.replace('ws_m0000', { ...content, voice: 'New' }, UPDATED, {
          actorType: 'operator',
          actorId: null,
          actorEmail: null,
          note: 'After the migration',
          sectionsChanged: ['voice'],
        });
        expect(next.version).toBe(8);
        expect((await store.brand.listVersions('ws_m0000', { limit: 10 })).map((r) => r.version)).toEqual([
          8, 7,
        ]);
      } finally {
        await store.close();
      }
    });
  });
