import { expect, it } from 'vitest';
import type { BrandVersion } from '../../../../contract/brand-versions.js';
import { BRAND_SECTIONS, type BrandContext } from '../../../../core/brand-context.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { auditLog, isoNow, useFixture } from '#test/support/http-fixture.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import {
  type BrandVersionDiffView,
  type BrandVersionPage,
  versionsApi,
} from '#test/support/fixtures/brand-versions.js';

/** A brand as GET answers it, without the fields the server sets: what a client puts back. */
function documentOf({ workspace_id: _id, updated_at: _at, version: _version, ...document }: BrandContext) {
  return document;
}

describeEachBackend(
  'Brand versions API (history, one version, diff, restore): the happy paths',
  (backend) => {
    const fixture = useFixture(backend);
    const { get, put, read } = brandApi(fixture);
    const { list, getVersion, diff, restore } = versionsApi(fixture);

    /** Puts the brand with `change` applied to it and a note, a minute later; answers the saved brand. */
    async function save(change: Partial<BrandContext>, note?: string): Promise<BrandContext> {
      fixture().clock.advance(MINUTE_MS);
      const current = (await get()).json<BrandContext>();
      const response = await put({
        ...documentOf(current),
        ...change,
        ...(note === undefined ? {} : { note }),
      });
      expect(response.statusCode, response.body).toBe(200);
      return response.json<BrandContext>();
    }

    it('records every change with who, when, its note and the sections it changed, newest first', async () => {
      const f = fixture();
      const saved = await save(
        { voice: 'Short sentences.', description: 'Roasted in Portland.' },
        'Tone pass',
      );

      const response = await list();

      expect(response.statusCode).toBe(200);
      const page = response.json<BrandVersionPage>();
      expect(page.items[0]).toEqual({
        version: saved.version,
        created_at: saved.updated_at,
        created_by: { type: 'user', id: f.admin.user.id, email: f.admin.user.email },
        note: 'Tone pass',
        sections_changed: ['description', 'voice'],
      } satisfies BrandVersion);
      // The fixture's workspace: created by the operator (version 1, every section), then the demo brand put.
      expect(page.items.map((item) => item.version)).toEqual(
        Array.from({ length: saved.version }, (_, index) => saved.version - index),
      );
      const first = page.items.at(-1);
      expect(first).toMatchObject({ version: 1, note: null, sections_changed: [...BRAND_SECTIONS] });
      expect(page.next_cursor).toBeNull();
    });

    it('keeps a PUT without a note, or with an empty one, as a version with a null note', async () => {
      const withoutNote = await save({ voice: 'Plain.' });
      const emptyNote = await save({ voice: 'Plainer.' }, '  ');
      const items = (await list('limit=2')).json<BrandVersionPage>().items;
      expect(items.map((item) => [item.version, item.note])).toEqual([
        [emptyNote.version, null],
        [withoutNote.version, null],
      ]);
    });

    it('pages through the history with the cursor: every version once, newest first, no empty last page', async () => {
      const all = (await list('limit=200')).json<BrandVersionPage>().items;
      expect(all.length).toBeGreaterThanOrEqual(3);

      const seen: number[] = [];
      let query = 'limit=2';
      for (;;) {
        const page = (await list(query)).json<BrandVersionPage>();
        expect(page.items.length).toBeGreaterThan(0);
        seen.push(...page.items.map((item) => item.version));
        if (page.next_cursor === null) break;
        query = `limit=2&cursor=${encodeURIComponent(page.next_cursor)}`;
      }
      expect(seen).toEqual(all.map((item) => item.version));
    });

    it('answers one version exactly as it was saved, with its ETag and Brand-Version, also after later changes', async () => {
      const saved = await save({ description: 'Version to remember.' });
      await save({ description: 'Later.' });

      const response = await getVersion(saved.version);

      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(saved);
      expect(response.headers.etag).toBe(`"${String(saved.version)}"`);
      expect(response.headers['brand-version']).toBe(String(saved.version));
    });

    it('answers the latest version as GET …/brand answers the brand, and GET …/brand carries Brand-Version', async () => {
      const latest = await get();
      const version = latest.json<BrandContext>().version;
      expect(latest.headers['brand-version']).toBe(String(version));
      const pinned = await getVersion(version);
      expect(pinned.json()).toEqual(latest.json());
      expect(pinned.headers.etag).toBe(latest.headers.etag);
    });

    it('diffs a version against the one before by default, per section, in the documented order', async () => {
      const before = await save({});
      const current = (await get()).json<BrandContext>();
      const [firstEntry, ...rest] = current.knowledge;
      if (!firstEntry) throw new Error('the demo brand has knowledge');
      const after = await save(
        {
          preferences: { ...current.preferences, emoji: 'never' },
          colors: { ...current.colors, primary: '#000000' },
          knowledge: [{ ...firstEntry, title: 'Founded (2012)' }, ...rest],
        },
        'Small fixes',
      );

      const response = await diff(after.version);

      expect(response.statusCode).toBe(200);
      const result = response.json<BrandVersionDiffView>();
      expect(result.from).toBe(before.version);
      expect(result.to).toBe(after.version);
      expect(result.sections.map((section) => section.section)).toEqual([
        'colors',
        'knowledge',
        'preferences',
      ]);
      expect(result.sections[0]?.changes).toEqual([
        { op: 'replace', path: '/colors/primary', before: current.colors.primary, after: '#000000' },
      ]);
      // The entry keeps its id, so its edit is a change inside it (its updated_at moves with it).
      expect(result.sections[1]?.changes).toContainEqual({
        op: 'replace',
        path: '/knowledge/0/title',
        before: firstEntry.title,
        after: 'Founded (2012)',
      });
      expect(result.sections[1]?.changes.every((change) => change.path.startsWith('/knowledge/0/'))).toBe(
        true,
      );
      expect(result.sections[2]?.changes).toEqual([
        {
          op: current.preferences.emoji === undefined ? 'add' : 'replace',
          path: '/preferences/emoji',
          ...(current.preferences.emoji === undefined ? {} : { before: current.preferences.emoji }),
          after: 'never',
        },
      ]);
    });

    it('diffs any two versions with from, in either order, and a version with itself as no change', async () => {
      const older = await save({ voice: 'Older voice.' });
      await save({ description: 'Between.' });
      const newer = await save({ voice: 'Newer voice.' });

      const forward = (await diff(newer.version, older.version)).json<BrandVersionDiffView>();
      expect(forward).toMatchObject({ from: older.version, to: newer.version });
      expect(forward.sections.map((section) => section.section)).toEqual(['description', 'voice']);
      expect(forward.sections[1]?.changes).toEqual([
        { op: 'replace', path: '/voice', before: 'Older voice.', after: 'Newer voice.' },
      ]);

      const backward = (await diff(older.version, newer.version)).json<BrandVersionDiffView>();
      expect(backward.sections[1]?.changes).toEqual([
        { op: 'replace', path: '/voice', before: 'Newer voice.', after: 'Older voice.' },
      ]);

      expect((await diff(newer.version, newer.version)).json()).toEqual({
        from: newer.version,
        to: newer.version,
        sections: [],
      });
      expect((await diff(1, 1)).statusCode).toBe(200);
    });

    it('restores a version as a new one with its content and a default note, and the read operation serves it', async () => {
      const f = fixture();
      const old = await save({ voice: 'The voice to restore.' });
      const latest = await save({ voice: 'A voice we regret.', description: 'Changed too.' });
      fixture().clock.advance(MINUTE_MS);
      const now = isoNow(f);

      const response = await restore(old.version);

      expect(response.statusCode).toBe(201);
      const restored = response.json<BrandContext>();
      expect(restored).toEqual({ ...old, version: latest.version + 1, updated_at: now });
      expect(response.headers.etag).toBe(`"${String(restored.version)}"`);
      expect(response.headers['brand-version']).toBe(String(restored.version));
      expect((await get()).json()).toEqual(restored);
      expect((await read()).json()).toEqual(restored);

      const [entry] = (await list('limit=1')).json<BrandVersionPage>().items;
      expect(entry).toEqual({
        version: restored.version,
        created_at: now,
        created_by: { type: 'user', id: f.admin.user.id, email: f.admin.user.email },
        note: `Restored version ${String(old.version)}`,
        sections_changed: ['description', 'voice'],
      });
      expect((await auditLog(f))[0]).toMatchObject({
        action: 'brand.restored',
        target: { type: 'brand', id: f.workspaceId },
        details: { version: restored.version, restored_version: old.version },
      });
      // The versions in between are still there, as they were.
      expect((await getVersion(latest.version)).json()).toEqual(latest);
    });

    it('restores with the note sent, and with an empty body or {} as with none', async () => {
      const old = await save({ voice: 'Voice A.' });
      await save({ voice: 'Voice B.' });

      expect((await restore(old.version, { note: 'Back to A for the launch' })).statusCode).toBe(201);
      expect((await list('limit=1')).json<BrandVersionPage>().items[0]?.note).toBe(
        'Back to A for the launch',
      );

      await save({ voice: 'Voice C.' });
      expect((await restore(old.version, {})).statusCode).toBe(201);
      await save({ voice: 'Voice D.' });
      expect((await restore(old.version)).statusCode).toBe(201);
      expect((await list('limit=1')).json<BrandVersionPage>().items[0]?.note).toBe(
        `Restored version ${String(old.version)}`,
      );
    });

    it('answers 200 with the brand and writes nothing when the version holds what the brand holds now', async () => {
      const f = fixture();
      const latest = await save({ voice: 'Already here.' });
      const twin = await save({ voice: 'Elsewhere.' });
      const back = (await restore(latest.version)).json<BrandContext>();
      expect(back.version).toBe(twin.version + 1);
      const tables = await snapshotTables(f.database.config);

      for (const version of [latest.version, back.version]) {
        const response = await restore(version, { note: 'Nothing to do' });
        expect(response.statusCode).toBe(200);
        expect(response.json()).toEqual(back);
        expect(response.headers['brand-version']).toBe(String(back.version));
      }
      expect(await snapshotTables(f.database.config)).toEqual(tables);
    });

    it('lands restores sent at once each as its own version, recording the sections each changed', async () => {
      const olds: BrandContext[] = [];
      for (const voice of ['One.', 'Two.', 'Three.', 'Four.'])
        olds.push(await save({ voice, description: voice }));
      const latest = await save({ voice: 'Latest.' });

      const responses = await Promise.all(olds.map((old) => restore(old.version)));

      expect(responses.map((response) => response.statusCode)).toEqual([201, 201, 201, 201]);
      const versions = responses
        .map((response) => response.json<BrandContext>().version)
        .sort((a, b) => a - b);
      expect(versions).toEqual([1, 2, 3, 4].map((step) => latest.version + step));
      const items = (await list('limit=4')).json<BrandVersionPage>().items;
      for (const item of items) {
        const changed = (await diff(item.version))
          .json<BrandVersionDiffView>()
          .sections.map((s) => s.section);
        expect(item.sections_changed, `version ${String(item.version)}`).toEqual(changed);
      }
    });

    it('restores with review on too: a restore is a publish, which owners and admins may do', async () => {
      const f = fixture();
      const old = await save({ voice: 'Reviewed voice.' });
      const latest = await save({ voice: 'Unreviewed voice.' });
      await f.deps.store.workspaces.setBrandReview(f.workspaceId, 'required');
      try {
        const response = await restore(old.version, { note: 'Rolled back' });
        expect(response.statusCode).toBe(201);
        expect(response.json<BrandContext>()).toMatchObject({
          voice: 'Reviewed voice.',
          version: latest.version + 1,
        });
      } finally {
        await f.deps.store.workspaces.setBrandReview(f.workspaceId, 'off');
      }
    });

    it('takes the note of a PUT beside an exported brand, and the document alone is what is stored', async () => {
      const current = (await get()).json<BrandContext>();
      fixture().clock.advance(MINUTE_MS);
      const response = await put({ ...current, voice: 'Exported and edited.', note: 'From an export' });
      expect(response.statusCode).toBe(200);
      const saved = response.json<BrandContext>();
      expect(saved).not.toHaveProperty('note');
      expect(response.headers['brand-version']).toBe(String(saved.version));
      expect((await list('limit=1')).json<BrandVersionPage>().items[0]).toMatchObject({
        version: saved.version,
        note: 'From an export',
        sections_changed: ['voice'],
      });
      // The same document again, with another note: nothing changes, so no version is made.
      const again = await put({ ...saved, note: 'Again' });
      expect(again.json()).toEqual(saved);
      expect((await list('limit=1')).json<BrandVersionPage>().items[0]?.version).toBe(saved.version);
    });

    it('shows a brand with every section set through history, version and diff alike', async () => {
      const first = await save({ ...DEMO_BRAND, voice: 'Demo again.' } as Partial<BrandContext>);
      const pinned = await getVersion(first.version);
      expect(pinned.json()).toEqual(first);
      expect((await diff(first.version, 1)).json<BrandVersionDiffView>().sections.length).toBeGreaterThan(5);
    });
  },
);
