import { beforeEach, expect, it } from 'vitest';
import type { BrandContext } from '../../../../core/brand-context.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { auditLog, isoNow, useFixture } from '#test/support/http-fixture.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import {
  brandEvents,
  brandWatcher,
  demoWithVoice,
  draftApi,
  resetReview,
} from '#test/support/fixtures/brand-draft.js';

describeEachBackend(
  'Brand draft (GET, PUT and DELETE /api/v1/workspaces/{id}/brand/draft, POST …/draft/publish): the happy paths',
  (backend) => {
    const fixture = useFixture(backend);
    const brand = brandApi(fixture);
    const draft = draftApi(fixture);

    beforeEach(async () => {
      await resetReview(fixture(), 'required');
    });

    it('lets a member save the draft: 200 in the brand’s shape with ETag "draft-1", based on the published version, which stays as it was', async () => {
      const f = fixture();
      const published = await brand.get();
      const { version } = published.json<BrandContext>();
      f.clock.advance(MINUTE_MS);

      const saved = await draft.put(demoWithVoice('Drafted by a member.'), { credential: f.member.token });

      expect(saved.statusCode).toBe(200);
      expect(saved.headers.etag).toBe('"draft-1"');
      expect(saved.json<BrandContext>()).toMatchObject({
        workspace_id: f.workspaceId,
        voice: 'Drafted by a member.',
        version,
        updated_at: isoNow(f),
      });
      const loaded = await draft.get(f.member.token);
      expect(loaded.statusCode).toBe(200);
      expect(loaded.headers.etag).toBe('"draft-1"');
      expect(loaded.body).toBe(saved.body);
      // Readers see the published brand only.
      expect((await brand.get()).body).toBe(published.body);
      expect((await brand.read()).json<BrandContext>()).toEqual(published.json());
    });

    it('moves the draft’s ETag on each save with If-Match, and keeps its entries’ ids', async () => {
      const first = await draft.put(demoWithVoice('First draft.'));
      const firstDraft = first.json<BrandContext>();
      expect(firstDraft.knowledge.every((entry) => entry.id.startsWith('kb_'))).toBe(true);

      const second = await draft.put(
        { ...firstDraft, voice: 'Second draft.' },
        { ifMatch: String(first.headers.etag) },
      );

      expect(second.statusCode).toBe(200);
      expect(second.headers.etag).toBe('"draft-2"');
      const secondDraft = second.json<BrandContext>();
      expect(secondDraft.voice).toBe('Second draft.');
      expect(secondDraft.knowledge.map((entry) => entry.id)).toEqual(
        firstDraft.knowledge.map((entry) => entry.id),
      );
      // A weakened ETag, as a proxy may send it, matches too.
      const third = await draft.put(demoWithVoice('Third draft.'), { ifMatch: 'W/"draft-2"' });
      expect(third.headers.etag).toBe('"draft-3"');
    });

    it('keeps the draft, its ETag and every table when the same document is saved again', async () => {
      const f = fixture();
      const saved = await draft.put(demoWithVoice('Saved once.'));
      const tables = await snapshotTables(f.database.config);
      f.clock.advance(MINUTE_MS);

      const again = await draft.put(demoWithVoice('Saved once.'), { ifMatch: String(saved.headers.etag) });

      expect(again.statusCode).toBe(200);
      expect(again.headers.etag).toBe(saved.headers.etag);
      expect(again.body).toBe(saved.body);
      expect(await snapshotTables(f.database.config)).toEqual(tables);
    });

    it('publishes the draft for an owner: 201 with the new version, ETag and Brand-Version; the draft is gone and every reader sees it', async () => {
      const f = fixture();
      const before = (await brand.get()).json<BrandContext>();
      await draft.put(demoWithVoice('Ready to publish.'), { credential: f.member.token });
      f.clock.advance(MINUTE_MS);

      const response = await draft.publish({ note: 'A warmer voice, agreed with marketing' });

      expect(response.statusCode).toBe(201);
      const published = response.json<BrandContext>();
      expect(published).toMatchObject({
        voice: 'Ready to publish.',
        version: before.version + 1,
        updated_at: isoNow(f),
      });
      expect(response.headers.etag).toBe(`"${String(published.version)}"`);
      expect(response.headers['brand-version']).toBe(String(published.version));
      expect((await brand.get()).json()).toEqual(published);
      expect((await brand.read()).json()).toEqual(published);
      expect((await draft.get()).statusCode).toBe(404);
      const [entry] = await auditLog(f);
      expect(entry).toMatchObject({
        action: 'brand.published',
        actor: { type: 'user', id: f.owner.user.id },
        details: expect.objectContaining({
          version: published.version,
          note: 'A warmer voice, agreed with marketing',
          sections: 'voice',
        }) as unknown,
      });
    });

    it('records the published draft in the history with its note, its sections and who published it', async () => {
      const f = fixture();
      await draft.put(demoWithVoice('For the history.'), { credential: f.member.token });
      const published = (
        await draft.publish({ note: 'History note' }, { credential: f.admin.token })
      ).json<BrandContext>();

      const version = await f.store.brand.getVersion(f.workspaceId, published.version);

      expect(version?.record).toMatchObject({
        version: published.version,
        note: 'History note',
        sectionsChanged: ['voice'],
        actorType: 'user',
        actorId: f.admin.user.id,
      });
      expect(version?.brand).toEqual(published);
    });

    it('publishes with no body at all, or an empty one, with no note', async () => {
      const f = fixture();
      await draft.put(demoWithVoice('No note.'));
      expect((await draft.publish()).statusCode).toBe(201);
      await draft.put(demoWithVoice('Empty body.'));
      expect((await draft.publish({})).statusCode).toBe(201);
      const [latest] = await auditLog(f);
      expect(latest?.details.note).toBeNull();
    });

    it('accepts If-Match with the draft’s ETag on publish', async () => {
      const saved = await draft.put(demoWithVoice('Matched.'));
      const response = await draft.publish({ note: 'Matched' }, { ifMatch: String(saved.headers.etag) });
      expect(response.statusCode).toBe(201);
    });

    it('removes a draft that holds the published content already, answering 200 with the brand as it is and no new version', async () => {
      const current = await brand.get();
      const { workspace_id: _w, updated_at: _u, version: _v, ...document } = current.json<BrandContext>();
      await draft.put(document);

      const response = await draft.publish({ note: 'Nothing new' });

      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(current.body);
      expect(response.headers['brand-version']).toBe(String(current.json<BrandContext>().version));
      expect((await draft.get()).statusCode).toBe(404);
      expect((await brand.get()).body).toBe(current.body);
    });

    it('lets an admin discard the draft: 204, the published brand as it was, and a new draft starts from revision 1', async () => {
      const f = fixture();
      const published = (await brand.get()).body;
      const saved = await draft.put(demoWithVoice('To discard.'));

      const response = await draft.discard({
        credential: f.admin.token,
        ifMatch: String(saved.headers.etag),
      });

      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect((await draft.get()).statusCode).toBe(404);
      expect((await brand.get()).body).toBe(published);
      expect((await auditLog(f))[0]?.action).toBe('brand.draft_discarded');
      expect((await draft.put(demoWithVoice('Fresh start.'))).headers.etag).toBe('"draft-1"');
    });

    it('sends brand.draft_updated on each save and discard, and brand.updated with the version and note on publish', async () => {
      const f = fixture();
      const webhookId = await brandWatcher(f);
      const { version } = (await brand.get()).json<BrandContext>();

      // A minute apart, so that the deliveries list in the order the events were sent.
      const saved = (await draft.put(demoWithVoice('Evented.'))).json<BrandContext>();
      f.clock.advance(MINUTE_MS);
      await draft.discard();
      f.clock.advance(MINUTE_MS);
      await draft.put(demoWithVoice('Evented again.'));
      f.clock.advance(MINUTE_MS);
      const published = (await draft.publish({ note: 'Evented' })).json<BrandContext>();

      const events = await brandEvents(f, webhookId);
      expect(events.map((event) => [event.type, event.data])).toEqual([
        [
          'brand.draft_updated',
          {
            draft: { revision: 1, base_version: version, updated_at: saved.updated_at },
            action: 'saved',
            changed: ['voice'],
          },
        ],
        [
          'brand.draft_updated',
          {
            draft: { revision: 1, base_version: version, updated_at: saved.updated_at },
            action: 'discarded',
            changed: ['voice'],
          },
        ],
        ['brand.draft_updated', expect.objectContaining({ action: 'saved', changed: ['voice'] })],
        [
          'brand.updated',
          {
            brand: { name: published.name, version: published.version, updated_at: published.updated_at },
            version: published.version,
            note: 'Evented',
            changed: ['voice'],
          },
        ],
      ]);
    });
  },
);
