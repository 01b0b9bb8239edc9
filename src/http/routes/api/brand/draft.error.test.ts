import { expect, it } from 'vitest';
import type { BrandContext } from '../../../../core/brand-context.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend } from '#test/support/databases.js';
import {
  auditLog,
  call,
  expectNonJsonRefused,
  outcome,
  type Problem,
  refused,
  useFixture,
} from '#test/support/http-fixture.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import {
  demoWithVoice,
  draftApi,
  draftUrl,
  publishUrl,
  resetReview,
  workspaceUrl,
} from '#test/support/fixtures/brand-draft.js';

/** Owners publishing the same draft at once: enough for every backend to interleave them. */
const CONCURRENT_PUBLISHES = 8;
/** Members saving the draft at once from the same revision. */
const CONCURRENT_SAVES = 8;

describeEachBackend(
  'Brand draft (GET, PUT and DELETE /api/v1/workspaces/{id}/brand/draft, POST …/draft/publish): errors',
  (backend) => {
    const fixture = useFixture(backend);
    const brand = brandApi(fixture);
    const draft = draftApi(fixture);

    it('keeps no draft while review is off: GET 404 draft_not_found, PUT, DELETE and publish 409 review_off, nothing written', async () => {
      const f = fixture();
      await resetReview(f, 'off');
      await refused(f, () => draft.get(), '404 draft_not_found');
      const saved = await refused(f, () => draft.put(demoWithVoice('Nowhere.')), '409 review_off');
      expect(saved.json<Problem>().resolution).toContain('PUT /api/v1/workspaces/{id}/brand');
      await refused(f, () => draft.publish({ note: 'Nothing' }), '409 review_off');
      await refused(f, () => draft.discard(), '409 review_off');
    });

    it('refuses PUT …/brand with 409 review_required while review is on, writing nothing; the draft takes the change', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const response = await refused(
        f,
        () => brand.put({ ...DEMO_BRAND, voice: 'Straight to the brand.' }),
        '409 review_required',
      );
      expect(response.json<Problem>().resolution).toContain('/brand/draft');
      expect(outcome(await draft.put(demoWithVoice('Straight to the brand.')))).toBe('200');
    });

    it('answers 404 draft_not_found to GET, DELETE and publish while review is on but no draft was saved', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await refused(f, () => draft.get(), '404 draft_not_found');
      await refused(f, () => draft.discard(), '404 draft_not_found');
      await refused(f, () => draft.publish(), '404 draft_not_found');
    });

    it('refuses a save whose If-Match names a revision the draft has moved on from with 412 draft_precondition_failed, overwriting nothing', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const first = await draft.put(demoWithVoice('First.'));
      const theirs = await draft.put(demoWithVoice('Theirs.'), { ifMatch: String(first.headers.etag) });

      const response = await refused(
        f,
        () => draft.put(demoWithVoice('Mine.'), { ifMatch: String(first.headers.etag) }),
        '412 draft_precondition_failed',
      );

      expect(response.json<Problem>().detail).toContain('revision 2');
      expect((await draft.get()).body).toBe(theirs.body);
    });

    it('refuses If-Match on a save when there is no draft, If-Match: * included, and the published brand’s ETag', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const brandEtag = String((await brand.get()).headers.etag);
      for (const ifMatch of ['"draft-1"', '*', brandEtag]) {
        const response = await refused(
          f,
          () => draft.put(demoWithVoice('Conditional.'), { ifMatch }),
          '412 draft_precondition_failed',
        );
        expect(response.json<Problem>().detail).toContain('has no draft');
      }
      const saved = await draft.put(demoWithVoice('Unconditional.'));
      await refused(
        f,
        () => draft.put(demoWithVoice('With the brand’s ETag.'), { ifMatch: brandEtag }),
        '412 draft_precondition_failed',
      );
      expect(outcome(await draft.put(demoWithVoice('Any draft.'), { ifMatch: '*' }))).toBe('200');
      expect(saved.headers.etag).toBe('"draft-1"');
    });

    it('refuses an If-Match without quotes with 412 draft_precondition_failed that says how to write it', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice('Quoted.'));
      const response = await refused(
        f,
        () => draft.put(demoWithVoice('Unquoted.'), { ifMatch: 'draft-1' }),
        '412 draft_precondition_failed',
      );
      expect(response.json<Problem>().resolution).toContain('quotes included');
    });

    it('refuses a discard or publish whose If-Match names another revision with 412, keeping the draft', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice('One.'));
      const current = await draft.put(demoWithVoice('Two.'));
      await refused(f, () => draft.discard({ ifMatch: '"draft-1"' }), '412 draft_precondition_failed');
      await refused(f, () => draft.publish({}, { ifMatch: '"draft-1"' }), '412 draft_precondition_failed');
      expect((await draft.get()).body).toBe(current.body);
    });

    it('refuses to publish a draft saved against a version the brand has moved on from: 409 draft_outdated, the draft kept', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const saved = await draft.put(demoWithVoice('Based on an old version.'));
      // An owner renames the workspace meanwhile: a new version of the brand.
      const renamed = await call(f, f.owner.token, 'PATCH', workspaceUrl(f.workspaceId), {
        body: { name: 'Acme Coffee Roasters' },
      });
      expect(renamed.statusCode).toBe(200);
      const published = await brand.get();

      const response = await refused(f, () => draft.publish({ note: 'Too late' }), '409 draft_outdated');

      const { version } = published.json<BrandContext>();
      expect(response.json<Problem>().detail).toContain(`version ${String(version)}`);
      expect((await draft.get()).body).toBe(saved.body);
      expect((await brand.get()).body).toBe(published.body);
      // Saved again, the draft is based on the version published now, and publishes.
      await draft.put({ ...saved.json<BrandContext>(), name: 'Acme Coffee Roasters' });
      const retried = await draft.publish({ note: 'Rebased' });
      expect(retried.statusCode).toBe(201);
      expect(retried.json<BrandContext>()).toMatchObject({
        name: 'Acme Coffee Roasters',
        voice: 'Based on an old version.',
        version: version + 1,
      });
    });

    it('lets exactly one of several concurrent publishes of the draft through: one 201, the others 404 draft_not_found, one new version', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const { version } = (await brand.get()).json<BrandContext>();
      await draft.put(demoWithVoice('Published once.'));
      const audited = (await auditLog(f)).length;

      const responses = await Promise.all(
        Array.from({ length: CONCURRENT_PUBLISHES }, (_, i) =>
          draft.publish(
            { note: `Publisher ${String(i)}` },
            { credential: i % 2 === 0 ? f.owner.token : f.admin.token },
          ),
        ),
      );

      const outcomes = responses.map(outcome);
      expect(
        outcomes.filter((result) => result === '201'),
        outcomes.join(', '),
      ).toHaveLength(1);
      expect(
        outcomes.filter(
          (result) => result === '404 draft_not_found' || result === '412 draft_precondition_failed',
        ),
        outcomes.join(', '),
      ).toHaveLength(CONCURRENT_PUBLISHES - 1);
      const winner = responses.find((response) => response.statusCode === 201)?.json<BrandContext>();
      expect(winner?.version).toBe(version + 1);
      expect((await brand.get()).json()).toEqual(winner);
      const history = await f.store.brand.listVersions(f.workspaceId, { limit: 3 });
      expect(history.map((record) => record.version)).toEqual([version + 1, version, version - 1]);
      const audit = await auditLog(f);
      expect(audit.slice(0, audit.length - audited).map((event) => event.action)).toEqual([
        'brand.published',
      ]);
      expect((await draft.get()).statusCode).toBe(404);
    });

    it('lets exactly one of several concurrent saves with the same If-Match through; the others answer 412', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const first = await draft.put(demoWithVoice('Shared start.'), { credential: f.member.token });
      const etag = String(first.headers.etag);

      const responses = await Promise.all(
        Array.from({ length: CONCURRENT_SAVES }, (_, i) =>
          draft.put(demoWithVoice(`Editor ${String(i)}`), { ifMatch: etag, credential: f.member.token }),
        ),
      );

      const outcomes = responses.map(outcome);
      expect(
        outcomes.filter((result) => result === '200'),
        outcomes.join(', '),
      ).toHaveLength(1);
      expect(outcomes.filter((result) => result === '412 draft_precondition_failed')).toHaveLength(
        CONCURRENT_SAVES - 1,
      );
      const winner = responses.find((response) => response.statusCode === 200);
      expect(winner?.headers.etag).toBe('"draft-2"');
      expect((await draft.get()).body).toBe(winner?.body);
    });

    it('saves every one of several concurrent saves without If-Match, one after another', async () => {
      await resetReview(fixture(), 'required');
      const responses = await Promise.all(
        Array.from({ length: 4 }, (_, i) => draft.put(demoWithVoice(`Unconditional ${String(i)}`))),
      );
      expect(responses.map(outcome)).toEqual(['200', '200', '200', '200']);
      expect(new Set(responses.map((response) => response.headers.etag)).size).toBe(4);
      expect((await draft.get()).headers.etag).toBe('"draft-4"');
    });

    it('refuses an invalid draft with 400 invalid_request naming the field, and saves nothing', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const response = await refused(
        f,
        () => draft.put({ ...DEMO_BRAND, colors: { ...DEMO_BRAND.colors, primary: 'red' } }),
        '400 invalid_request',
      );
      expect(response.json<Problem>().errors?.map((issue) => issue.field)).toEqual(['colors.primary']);
      await refused(f, () => draft.put({ ...DEMO_BRAND, note: 'Not on drafts' }), '400 invalid_request');
    });

    it('refuses a publish note that is not one line of at most 500 characters, or an unknown field, with 400', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice('Noted.'));
      for (const body of [
        { note: 'Two\nlines' },
        { note: 'x'.repeat(501) },
        { note: 42 },
        { note: 'Fine', version: 3 },
        [],
      ]) {
        const response = await refused(f, () => draft.publish(body), '400 invalid_request');
        expect(response.json<Problem>().errors?.length, JSON.stringify(body)).toBeGreaterThan(0);
      }
      expect(outcome(await draft.get())).toBe('200');
    });

    it('answers 404 workspace_not_found on every draft route of a workspace that does not exist', async () => {
      const f = fixture();
      const ws = 'ws_DoesNotExist';
      await refused(f, () => call(f, f.owner.token, 'GET', draftUrl(ws)), '404 workspace_not_found');
      await refused(
        f,
        () => call(f, f.owner.token, 'PUT', draftUrl(ws), { body: DEMO_BRAND }),
        '404 workspace_not_found',
      );
      await refused(f, () => call(f, f.owner.token, 'DELETE', draftUrl(ws)), '404 workspace_not_found');
      await refused(f, () => call(f, f.owner.token, 'POST', publishUrl(ws)), '404 workspace_not_found');
    });

    it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON, and changes nothing', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await expectNonJsonRefused(f, f.member.token, 'PUT', draftUrl(f.workspaceId));
      await draft.put(demoWithVoice('Waiting.'));
      await expectNonJsonRefused(f, f.owner.token, 'POST', publishUrl(f.workspaceId));
    });
  },
);
