import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BRAND_SECTIONS, emptyBrand } from '../../src/core/brand-context.js';
import { openStore } from '../../src/store/open-store.js';
import type {
  ActorType,
  BrandChange,
  BrandContent,
  BrandDraftRecord,
  CampaignRecord,
  Store,
  WorkspaceRecord,
} from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { oldDatabase } from '#test/support/migrations.js';

let sequence = 0;
const unique = (prefix: string) => `${prefix}_versions${String(++sequence).padStart(8, '0')}`;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 20, 10, minute)).toISOString();

function workspace(overrides: Partial<WorkspaceRecord> = {}): WorkspaceRecord {
  return { id: unique('ws'), name: 'Versions Co', createdAt: at(0), brandReview: 'off', ...overrides };
}

const ALICE: BrandChange = {
  actorType: 'user',
  actorId: 'usr_alice',
  actorEmail: 'alice@example.com',
  note: 'Darker primary',
  sectionsChanged: ['colors'],
};
const API_KEY: BrandChange = {
  actorType: 'api_key',
  actorId: 'ak_versions',
  actorEmail: null,
  note: null,
  sectionsChanged: ['voice'],
};

/** The brand as the nth change leaves it: a different voice each time, and an entry in a list. */
function content(n: number): BrandContent {
  return {
    ...emptyBrand(),
    name: 'Versions Co',
    voice: `Voice ${String(n)}`,
    colors: { ...emptyBrand().colors, primary: '#112233' },
    knowledge: [
      {
        id: 'kb_1',
        kind: 'fact',
        title: `Fact ${String(n)}`,
        content: 'ünïcode "quoted"',
        tags: ['a'],
        updated_at: at(n),
      },
    ],
    preferences: { z_last: 1, a_first: 'kept in this order' },
  };
}

function draft(workspaceId: string, revision: number, voice = 'Draft voice'): BrandDraftRecord {
  return {
    workspaceId,
    content: { ...content(0), voice },
    baseVersion: 1,
    revision,
    actorType: 'user',
    actorId: 'usr_member',
    actorEmail: 'member@example.com',
    updatedAt: at(revision),
  };
}

/** Resolves once `promise` has settled, or after `ms` milliseconds: whether it settled in time. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setTimeout(resolve, ms));
  return settled;
}

/** A promise and the function that resolves it: holds a transaction open until the test lets it go. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

describeEachBackend('Store contract: brand versions and drafts', (backend) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  async function newWorkspace(overrides: Partial<WorkspaceRecord> = {}): Promise<string> {
    const ws = workspace(overrides);
    await store.workspaces.create(ws, emptyBrand());
    return ws.id;
  }

  describe('versions', () => {
    it('records a new workspace’s brand as version 1, by the service unless told otherwise, with every section', async () => {
      const wsId = await newWorkspace();
      const brand = await store.brand.get(wsId);
      expect(await store.brand.getVersion(wsId, 1)).toEqual({
        record: {
          workspaceId: wsId,
          version: 1,
          createdAt: at(0),
          actorType: 'system',
          actorId: null,
          actorEmail: null,
          note: null,
          sectionsChanged: [...BRAND_SECTIONS],
        },
        brand,
      });

      const ws = workspace();
      await store.workspaces.create(ws, emptyBrand(), {
        ...ALICE,
        note: 'Created',
        sectionsChanged: ['name'],
      });
      expect((await store.brand.getVersion(ws.id, 1))?.record).toMatchObject({
        actorType: 'user',
        actorId: 'usr_alice',
        actorEmail: 'alice@example.com',
        note: 'Created',
        sectionsChanged: ['name'],
      });
    });

    it('records every replacement as an immutable version holding the whole brand as it was', async () => {
      const wsId = await newWorkspace();
      const second = await store.brand.replace(wsId, content(2), at(2), ALICE);
      const third = await store.brand.replace(wsId, content(3), at(3), API_KEY);
      expect(third.version).toBe(3);

      const version2 = await store.brand.getVersion(wsId, 2);
      expect(version2?.brand).toEqual(second);
      // Byte for byte, key order included: a pinned read serves the same JSON the latest read did.
      expect(JSON.stringify(version2?.brand)).toBe(JSON.stringify(second));
      expect(version2?.record).toEqual({
        workspaceId: wsId,
        version: 2,
        createdAt: at(2),
        ...ALICE,
      });
      expect(await store.brand.getVersion(wsId, 3)).toEqual({
        record: { workspaceId: wsId, version: 3, createdAt: at(3), ...API_KEY },
        brand: third,
      });
      expect(await store.brand.get(wsId)).toEqual(third);
    });

    it('lists versions newest first, a page at a time, without another workspace’s', async () => {
      const [wsId, otherId] = [await newWorkspace(), await newWorkspace()];
      for (let n = 2; n <= 6; n++) await store.brand.replace(wsId, content(n), at(n), ALICE);
      await store.brand.replace(otherId, content(9), at(9), API_KEY);

      const all = await store.brand.listVersions(wsId, { limit: 100 });
      expect(all.map((record) => record.version)).toEqual([6, 5, 4, 3, 2, 1]);
      expect(all[0]).toEqual({ workspaceId: wsId, version: 6, createdAt: at(6), ...ALICE });
      expect(all.at(-1)?.actorType).toBe('system');

      const pages: number[][] = [];
      let before: number | undefined;
      for (let page = 0; page < 10; page++) {
        const rows = await store.brand.listVersions(wsId, { limit: 2, ...(before ? { before } : {}) });
        pages.push(rows.map((record) => record.version));
        before = rows.at(-1)?.version;
        if (rows.length < 2) break;
      }
      expect(pages).toEqual([[6, 5], [4, 3], [2, 1], []]);
      expect((await store.brand.listVersions(wsId, { before: 1, limit: 10 })).length).toBe(0);
      expect((await store.brand.listVersions(otherId, { limit: 10 })).map((r) => r.version)).toEqual([2, 1]);
      expect(await store.brand.listVersions(unique('ws'), { limit: 10 })).toEqual([]);
    });

    it('answers undefined for a version that does not exist, or is another workspace’s', async () => {
      const [wsId, otherId] = [await newWorkspace(), await newWorkspace()];
      await store.brand.replace(wsId, content(2), at(2), ALICE);
      expect(await store.brand.getVersion(wsId, 3)).toBeUndefined();
      expect(await store.brand.getVersion(otherId, 2)).toBeUndefined();
      expect(await store.brand.getVersion(unique('ws'), 1)).toBeUndefined();
    });

    it('writes neither the brand nor its version when the replacement fails', async () => {
      const wsId = await newWorkspace();
      const before = await store.brand.replace(wsId, content(2), at(2), ALICE);
      const duplicateIds = { ...content(3), knowledge: [...content(3).knowledge, ...content(3).knowledge] };
      await expect(store.brand.replace(wsId, duplicateIds, at(3), ALICE)).rejects.toThrow();
      expect(await store.brand.get(wsId)).toEqual(before);
      expect((await store.brand.listVersions(wsId, { limit: 10 })).map((r) => r.version)).toEqual([2, 1]);
    });

    it('writes neither when recording the version fails', async () => {
      const wsId = await newWorkspace();
      const before = await store.brand.get(wsId);
      const unknownAuthor = { ...ALICE, actorType: 'robot' as ActorType };
      await expect(store.brand.replace(wsId, content(2), at(2), unknownAuthor)).rejects.toThrow();
      expect(await store.brand.get(wsId)).toEqual(before);
      expect(await store.brand.getVersion(wsId, 2)).toBeUndefined();
    });

    it('writes neither when the transaction around the replacement rolls back', async () => {
      const wsId = await newWorkspace();
      const before = await store.brand.get(wsId);
      await expect(
        store.transaction(async (tx) => {
          await tx.brand.replace(wsId, content(2), at(2), ALICE);
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(await store.brand.get(wsId)).toEqual(before);
      expect(await store.brand.getVersion(wsId, 2)).toBeUndefined();
    });

    it('records nothing for a replacement at a version the brand has moved on from', async () => {
      const wsId = await newWorkspace();
      await store.brand.replaceAtVersion(wsId, 1, content(2), at(2), ALICE);
      expect(await store.brand.replaceAtVersion(wsId, 1, content(3), at(3), API_KEY)).toBeUndefined();
      expect((await store.brand.listVersions(wsId, { limit: 10 })).map((r) => r.version)).toEqual([2, 1]);
      expect((await store.brand.getVersion(wsId, 2))?.record.actorId).toBe('usr_alice');
    });

    it('lets one of two concurrent publishes at the same version win, and records only the winner’s version', async () => {
      const wsId = await newWorkspace();
      const firstWrote = gate();
      const release = gate();
      const first = store.transaction(async (tx) => {
        const result = await tx.brand.replaceAtVersion(wsId, 1, content(2), at(2), ALICE);
        firstWrote.open();
        await release.wait;
        return result;
      });
      await firstWrote.wait;
      const second = store.transaction((tx) =>
        tx.brand.replaceAtVersion(wsId, 1, content(3), at(3), API_KEY),
      );
      // PostgreSQL: the second waits on the row the first holds; SQLite: on the write lock.
      expect(await settlesWithin(second, 200)).toBe(false);
      release.open();

      const [won, lost] = await Promise.all([first, second]);
      expect(won?.version).toBe(2);
      expect(lost).toBeUndefined();
      const versions = await store.brand.listVersions(wsId, { limit: 10 });
      expect(versions.map((record) => [record.version, record.actorId])).toEqual([
        [2, 'usr_alice'],
        [1, null],
      ]);
      expect((await store.brand.getVersion(wsId, 2))?.brand).toEqual(won);
    });

    it('gives concurrent unconditional replacements one version each, none lost', async () => {
      const wsId = await newWorkspace();
      await Promise.all(
        [2, 3, 4, 5].map((n) => store.transaction((tx) => tx.brand.replace(wsId, content(n), at(n), ALICE))),
      );
      const versions = await store.brand.listVersions(wsId, { limit: 10 });
      expect(versions.map((record) => record.version)).toEqual([5, 4, 3, 2, 1]);
      const latest = await store.brand.get(wsId);
      expect((await store.brand.getVersion(wsId, 5))?.brand).toEqual(latest);
    });
  });

  describe('drafts', () => {
    it('saves a draft only where none is, with a null expected revision, and gets it back as it was', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      expect(await store.brand.getDraft(wsId)).toBeUndefined();
      expect(await store.brand.saveDraft(draft(wsId, 1), null)).toBe(true);
      expect(await store.brand.getDraft(wsId)).toEqual(draft(wsId, 1));
      expect(JSON.stringify((await store.brand.getDraft(wsId))?.content)).toBe(
        JSON.stringify(draft(wsId, 1).content),
      );
      expect(await store.brand.saveDraft(draft(wsId, 2, 'Other'), null)).toBe(false);
      expect(await store.brand.getDraft(wsId)).toEqual(draft(wsId, 1));
    });

    it('saves over a draft only at the expected revision (compare-and-set)', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      expect(await store.brand.saveDraft(draft(wsId, 1), 1)).toBe(false);
      expect(await store.brand.getDraft(wsId)).toBeUndefined();
      await store.brand.saveDraft(draft(wsId, 1), null);
      expect(await store.brand.saveDraft(draft(wsId, 2, 'Stale'), 7)).toBe(false);
      expect(await store.brand.saveDraft(draft(wsId, 2, 'Second'), 1)).toBe(true);
      expect(await store.brand.getDraft(wsId)).toEqual(draft(wsId, 2, 'Second'));
      expect(await store.brand.saveDraft(draft(wsId, 3, 'Stale again'), 1)).toBe(false);
      expect((await store.brand.getDraft(wsId))?.revision).toBe(2);
    });

    it('saves over whatever is there without an expected revision, or where there is nothing', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      expect(await store.brand.saveDraft(draft(wsId, 1), undefined)).toBe(true);
      expect(await store.brand.saveDraft({ ...draft(wsId, 5, 'Forced'), baseVersion: 4 }, undefined)).toBe(
        true,
      );
      expect(await store.brand.getDraft(wsId)).toEqual({ ...draft(wsId, 5, 'Forced'), baseVersion: 4 });
    });

    it('keeps each workspace’s draft apart', async () => {
      const [wsId, otherId] = [
        await newWorkspace({ brandReview: 'required' }),
        await newWorkspace({ brandReview: 'required' }),
      ];
      await store.brand.saveDraft(draft(wsId, 1, 'Mine'), null);
      expect(await store.brand.getDraft(otherId)).toBeUndefined();
      expect(await store.brand.takeDraft(otherId)).toBeUndefined();
      expect(await store.brand.saveDraft(draft(otherId, 1, 'Theirs'), null)).toBe(true);
      expect((await store.brand.getDraft(wsId))?.content.voice).toBe('Mine');
    });

    it('lets one of concurrent saves at the same revision land', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      await store.brand.saveDraft(draft(wsId, 1), null);
      const results = await Promise.all(
        ['A', 'B', 'C', 'D'].map((voice) => store.brand.saveDraft(draft(wsId, 2, voice), 1)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = ['A', 'B', 'C', 'D'][results.indexOf(true)];
      expect(await store.brand.getDraft(wsId)).toEqual(draft(wsId, 2, winner));
    });

    it('takes the draft away once, and only at its revision when one is named', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      expect(await store.brand.takeDraft(wsId)).toBeUndefined();
      await store.brand.saveDraft(draft(wsId, 3), null);
      expect(await store.brand.takeDraft(wsId, 2)).toBeUndefined();
      expect(await store.brand.getDraft(wsId)).toEqual(draft(wsId, 3));
      expect(await store.brand.takeDraft(wsId, 3)).toEqual(draft(wsId, 3));
      expect(await store.brand.getDraft(wsId)).toBeUndefined();
      expect(await store.brand.takeDraft(wsId)).toBeUndefined();

      await store.brand.saveDraft(draft(wsId, 4), null);
      expect(await store.brand.takeDraft(wsId)).toEqual(draft(wsId, 4));
    });

    it('gives the draft to exactly one of many takes at once', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      await store.brand.saveDraft(draft(wsId, 1), null);
      const taken = await Promise.all(
        Array.from({ length: 6 }, () => store.transaction((tx) => tx.brand.takeDraft(wsId))),
      );
      expect(taken.filter((result) => result !== undefined)).toEqual([draft(wsId, 1)]);
    });

    it('gives the draft to one of two transactions at once: the other waits, then finds it gone', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      await store.brand.saveDraft(draft(wsId, 1), null);
      const firstTook = gate();
      const release = gate();
      const first = store.transaction(async (tx) => {
        const result = await tx.brand.takeDraft(wsId);
        firstTook.open();
        await release.wait;
        return result;
      });
      await firstTook.wait;
      const second = store.transaction((tx) => tx.brand.takeDraft(wsId));
      expect(await settlesWithin(second, 200)).toBe(false);
      release.open();
      const [won, lost] = await Promise.all([first, second]);
      expect(won).toEqual(draft(wsId, 1));
      expect(lost).toBeUndefined();
    });

    it('keeps the draft when the transaction that took it rolls back (a publish that found the brand moved)', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      await store.brand.saveDraft(draft(wsId, 1), null);
      await store.brand.replace(wsId, content(2), at(2), ALICE);
      await expect(
        store.transaction(async (tx) => {
          const taken = await tx.brand.takeDraft(wsId);
          if (!taken) throw new Error('no draft');
          const published = await tx.brand.replaceAtVersion(
            wsId,
            taken.baseVersion,
            taken.content,
            at(3),
            ALICE,
          );
          if (!published) throw new Error('draft outdated');
          return published;
        }),
      ).rejects.toThrow('draft outdated');
      expect(await store.brand.getDraft(wsId)).toEqual(draft(wsId, 1));
      expect((await store.brand.get(wsId))?.version).toBe(2);
    });
  });

  describe('review setting', () => {
    it('creates workspaces with review off unless told otherwise, and round-trips the setting', async () => {
      const off = workspace({ brandReview: undefined });
      await store.workspaces.create(off, emptyBrand());
      expect((await store.workspaces.get(off.id))?.brandReview).toBe('off');

      const required = workspace({ brandReview: 'required' });
      await store.workspaces.create(required, emptyBrand());
      expect(await store.workspaces.get(required.id)).toEqual(required);

      expect(await store.workspaces.setBrandReview(off.id, 'required')).toBe(true);
      expect((await store.workspaces.get(off.id))?.brandReview).toBe('required');
      expect(await store.workspaces.setBrandReview(required.id, 'off')).toBe(true);
      expect((await store.workspaces.get(required.id))?.brandReview).toBe('off');
      expect(await store.workspaces.setBrandReview(unique('ws'), 'required')).toBe(false);
      const listed = (await store.workspaces.list()).find((listedWs) => listedWs.id === off.id);
      expect(listed?.brandReview).toBe('required');
    });

    it('refuses a setting other than off and required', async () => {
      const wsId = await newWorkspace();
      await expect(store.workspaces.setBrandReview(wsId, 'sometimes' as 'off')).rejects.toThrow();
      expect((await store.workspaces.get(wsId))?.brandReview).toBe('off');
    });

    it('shows the setting in the workspaces a user belongs to', async () => {
      const wsId = await newWorkspace({ brandReview: 'required' });
      const user = {
        id: unique('usr'),
        email: `${unique('u')}@example.com`,
        passwordHash: null,
        createdAt: at(0),
      };
      await store.users.create(user);
      await store.workspaces.addMember({
        workspaceId: wsId,
        userId: user.id,
        role: 'member',
        createdAt: at(0),
      });
      expect(await store.workspaces.listOf(user.id)).toEqual([
        { id: wsId, name: 'Versions Co', createdAt: at(0), brandReview: 'required', role: 'member' },
      ]);
    });
  });

  describe('campaigns', () => {
    function campaign(workspaceId: string, overrides: Partial<CampaignRecord> = {}): CampaignRecord {
      return {
        id: unique('cmp'),
        workspaceId,
        name: 'Campaign',
        subject: 'Subject',
        preheader: '',
        body_html: '<p>x</p>',
        body_text: 'x',
        status: 'draft',
        version: 1,
        createdAt: at(1),
        updatedAt: at(1),
        ...overrides,
      };
    }

    it('records the brand version a campaign was written against, null when none is given', async () => {
      const wsId = await newWorkspace();
      const unpinned = campaign(wsId);
      await store.campaigns.create(unpinned);
      expect((await store.campaigns.get(wsId, unpinned.id))?.brandVersion).toBeNull();

      const pinned = campaign(wsId, { brandVersion: 3 });
      await store.campaigns.create(pinned);
      expect(await store.campaigns.get(wsId, pinned.id)).toEqual(pinned);
      expect((await store.campaigns.list(wsId, { limit: 10 })).map((c) => c.brandVersion).sort()).toEqual([
        3,
        null,
      ]);
    });

    it('moves the brand version with an update that names it, and keeps it with one that does not', async () => {
      const wsId = await newWorkspace();
      const record = campaign(wsId, { brandVersion: 1 });
      await store.campaigns.create(record);
      const moved = await store.campaigns.update(wsId, record.id, 'draft', {
        brandVersion: 4,
        updatedAt: at(2),
      });
      expect(moved).toEqual({ ...record, brandVersion: 4, version: 2, updatedAt: at(2) });
      const kept = await store.campaigns.update(wsId, record.id, 'draft', {
        subject: 'New',
        updatedAt: at(3),
      });
      expect(kept?.brandVersion).toBe(4);
    });
  });

  describe('change feed', () => {
    it('announces a published version, and neither a draft nor the review setting: readers see neither', async () => {
      const wsId = await newWorkspace();
      const received: (string | null)[] = [];
      const unsubscribe = store.changes.subscribe((change) => received.push(change.workspaceId));
      try {
        await store.workspaces.setBrandReview(wsId, 'required');
        await store.brand.saveDraft(draft(wsId, 1), null);
        await store.brand.takeDraft(wsId);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(received.filter((id) => id === wsId)).toEqual([]);
        await store.brand.replace(wsId, content(2), at(2), ALICE);
        expect(received).toContain(wsId);
      } finally {
        unsubscribe();
      }
    });
  });

  describe('workspace deletion', () => {
    it('removes the workspace’s versions and draft with it', async () => {
      const [wsId, otherId] = [
        await newWorkspace({ brandReview: 'required' }),
        await newWorkspace({ brandReview: 'required' }),
      ];
      for (const id of [wsId, otherId]) {
        await store.brand.replace(id, content(2), at(2), ALICE);
        await store.brand.saveDraft(draft(id, 1), null);
      }
      // No use case deletes a workspace yet: the operator does, in the database.
      const db = oldDatabase(database);
      try {
        await db.deleteFrom('workspaces').where('id', '=', wsId).execute();
        const left = async (table: string) =>
          (await db.selectFrom(table).select('workspace_id').where('workspace_id', '=', wsId).execute())
            .length;
        expect(await left('brand_versions')).toBe(0);
        expect(await left('brand_drafts')).toBe(0);
      } finally {
        await db.destroy();
      }
      expect(await store.brand.listVersions(wsId, { limit: 10 })).toEqual([]);
      expect(await store.brand.getDraft(wsId)).toBeUndefined();
      expect((await store.brand.listVersions(otherId, { limit: 10 })).length).toBe(2);
      expect(await store.brand.getDraft(otherId)).toBeDefined();
    });
  });
});
