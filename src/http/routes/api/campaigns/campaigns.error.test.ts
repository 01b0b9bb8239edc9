import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { CAMPAIGN_BODY_LIMIT, CAMPAIGN_LIMITS } from '../../../../contract/campaigns.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { type Campaign, campaignsApi, campaignsUrl, newDraft } from '#test/support/fixtures/campaigns.js';
import { call, outcome, problemOf, unchanged, useFixture } from '#test/support/http-fixture.js';

const cursorOf = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** Invalid bodies, each with exactly the fields the 400 must name. */
const INVALID_CREATE: { case: string; body: unknown; fields: string[] }[] = [
  { case: 'an empty name', body: { name: '' }, fields: ['name'] },
  { case: 'a name of spaces only', body: { name: '   ' }, fields: ['name'] },
  { case: 'no name', body: { subject: 'Hello' }, fields: ['name'] },
  {
    case: `a subject over ${CAMPAIGN_LIMITS.subject} characters`,
    body: { name: 'x', subject: 's'.repeat(CAMPAIGN_LIMITS.subject + 1) },
    fields: ['subject'],
  },
  {
    case: 'a subject with \\r\\n',
    body: { name: 'x', subject: 'Hi\r\nBcc: all@example.com' },
    fields: ['subject'],
  },
  { case: 'a preheader with \\n', body: { name: 'x', preheader: 'one\ntwo' }, fields: ['preheader'] },
  { case: 'an unknown field status', body: { name: 'x', status: 'scheduled' }, fields: ['status'] },
  { case: 'a name that is a number', body: { name: 5 }, fields: ['name'] },
  { case: 'a subject that is null', body: { name: 'x', subject: null }, fields: ['subject'] },
  { case: 'a body_html that is an array', body: { name: 'x', body_html: ['<p>'] }, fields: ['body_html'] },
  {
    case: `a body_text over ${CAMPAIGN_LIMITS.bodyText} characters`,
    body: { name: 'x', body_text: 't'.repeat(CAMPAIGN_LIMITS.bodyText + 1) },
    fields: ['body_text'],
  },
  { case: 'a body that is an array', body: [{ name: 'x' }], fields: [''] },
  {
    case: 'several mistakes at once',
    body: { name: '', subject: 'a\nb', version: 7 },
    fields: ['name', 'subject', 'version'],
  },
];

const INVALID_PATCH: { case: string; body: unknown; fields: string[] }[] = [
  { case: 'an empty body', body: {}, fields: [''] },
  { case: 'an empty name', body: { name: '' }, fields: ['name'] },
  {
    case: `a subject over ${CAMPAIGN_LIMITS.subject} characters`,
    body: { subject: 's'.repeat(CAMPAIGN_LIMITS.subject + 1) },
    fields: ['subject'],
  },
  { case: 'a subject with \\r\\n', body: { subject: 'Hi\r\nX-Injected: 1' }, fields: ['subject'] },
  { case: 'an unknown field status', body: { subject: 'x', status: 'sent' }, fields: ['status'] },
  { case: 'only an unknown field status', body: { status: 'sent' }, fields: ['status'] },
  { case: 'server-set fields', body: { name: 'x', version: 9, id: 'cmp_x' }, fields: ['id', 'version'] },
  { case: 'a subject that is a number', body: { subject: 42 }, fields: ['subject'] },
  { case: 'a name that is null', body: { name: null }, fields: ['name'] },
  {
    case: `a body_html over ${CAMPAIGN_LIMITS.bodyHtml} characters`,
    body: { body_html: 'h'.repeat(CAMPAIGN_LIMITS.bodyHtml + 1) },
    fields: ['body_html'],
  },
  { case: 'a body that is a string', body: 'name', fields: [''] },
];

function expectFields(response: LightMyRequestResponse, fields: string[]): void {
  expect(outcome(response)).toBe('400 invalid_request');
  const problem = problemOf(response);
  expect((problem.errors ?? []).map((issue) => issue.field).sort()).toEqual([...fields].sort());
  for (const issue of problem.errors ?? []) expect(issue.message).not.toBe('');
}

describeEachBackend('Campaign drafts API: errors', (backend) => {
  const fixture = useFixture(backend);

  describe('only drafts change', () => {
    it('answers 409 campaign_not_draft to an edit of a scheduled campaign, and changes nothing', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.owner.token);
      const draft = await newDraft(f);
      expect((await api.schedule(draft.id)).statusCode).toBe(200);
      for (const ifMatch of [undefined, '"2"', '*']) {
        const response = await unchanged(f, () => api.patch(draft.id, { subject: 'Too late' }, ifMatch));
        expect(outcome(response), `If-Match: ${String(ifMatch)}`).toBe('409 campaign_not_draft');
        expect(problemOf(response).detail).toContain('scheduled');
      }
      expect((await api.get(draft.id)).json()).toMatchObject({ subject: draft.subject, version: 2 });
    });

    it('answers 409 campaign_not_draft to scheduling a campaign twice', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.apiKey);
      const draft = await newDraft(f);
      expect((await api.schedule(draft.id)).statusCode).toBe(200);
      const response = await unchanged(f, () => api.schedule(draft.id));
      expect(outcome(response)).toBe('409 campaign_not_draft');
    });

    it('answers 403 insufficient_role to a member who schedules, and changes nothing', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      const response = await unchanged(f, () => campaignsApi(f, f.member.token).schedule(draft.id));
      expect(outcome(response)).toBe('403 insufficient_role');
      expect((await campaignsApi(f, f.owner.token).get(draft.id)).json()).toEqual(draft);
    });
  });

  describe('If-Match', () => {
    it('answers 412 version_mismatch to an edit based on a stale ETag, and keeps the stored campaign', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.owner.token);
      const draft = await newDraft(f);
      expect((await api.patch(draft.id, { subject: 'Someone else was first' }, '"1"')).statusCode).toBe(200);
      const before = await api.get(draft.id);

      for (const stale of ['"1"', 'W/"1"', '"3"', '"1", "3"', 'garbage']) {
        const response = await unchanged(f, () => api.patch(draft.id, { subject: 'My edit' }, stale));
        expect(outcome(response), `If-Match: ${stale}`).toBe('412 version_mismatch');
      }

      const after = await api.get(draft.id);
      expect(after.body).toBe(before.body);
      expect(after.headers.etag).toBe('"2"');
    });

    it('says the ETag needs its quotes when If-Match names the current version bare', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      const response = await campaignsApi(f, f.owner.token).patch(
        draft.id,
        { subject: 'Typed by hand' },
        '1',
      );
      expect(outcome(response)).toBe('412 version_mismatch');
      expect(problemOf(response).resolution).toBe(
        'Send the ETag as the API sent it, quotes included: If-Match: "3", not If-Match: 3.',
      );
    });

    it('answers 412 version_mismatch to scheduling a campaign that changed since it was read', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.apiKey);
      const draft = await newDraft(f);
      await api.patch(draft.id, { name: 'Changed' });
      const response = await unchanged(f, () => api.schedule(draft.id, '"1"'));
      expect(outcome(response)).toBe('412 version_mismatch');
      expect((await api.get(draft.id)).json()).toMatchObject({ status: 'draft', version: 2 });
    });
  });

  describe('concurrent edits', () => {
    it('lets exactly one of two concurrent edits with the same If-Match through; the other gets 412', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.owner.token);
      for (let round = 0; round < 3; round++) {
        const draft = await newDraft(f);
        const responses = await Promise.all([
          api.patch(draft.id, { subject: 'Edit A' }, '"1"'),
          api.patch(draft.id, { subject: 'Edit B' }, '"1"'),
        ]);
        expect(responses.map(outcome).sort(), `round ${String(round)}`).toEqual([
          '200',
          '412 version_mismatch',
        ]);
        const winner = responses.find((response) => response.statusCode === 200)?.json<Campaign>();
        const stored = (await api.get(draft.id)).json<Campaign>();
        expect(stored.version).toBe(2);
        expect(stored.subject).toBe(winner?.subject);
        const audit = (await snapshotTables(f.database.config)).audit_events as {
          action: string;
          target_id: string;
        }[];
        expect(
          audit
            .filter((row) => row.target_id === draft.id)
            .map((row) => row.action)
            .sort(),
        ).toEqual(['campaign.created', 'campaign.updated']);
      }
    });

    it('applies both of two concurrent edits without If-Match, one after the other', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.owner.token);
      const draft = await newDraft(f);
      const responses = await Promise.all([
        api.patch(draft.id, { subject: 'Edit A' }),
        api.patch(draft.id, { preheader: 'Edit B' }),
      ]);
      expect(responses.map(outcome)).toEqual(['200', '200']);
      expect(responses.map((response) => response.json<Campaign>().version).sort()).toEqual([2, 3]);
      expect((await api.get(draft.id)).json()).toMatchObject({
        subject: 'Edit A',
        preheader: 'Edit B',
        version: 3,
      });
    });

    it('lets exactly one of two concurrent schedules through; the other gets 409', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.apiKey);
      const draft = await newDraft(f);
      const responses = await Promise.all([api.schedule(draft.id, '"1"'), api.schedule(draft.id, '"1"')]);
      // The loser sees either the new version (412) or the new status (409), depending on timing; never 200.
      const outcomes = responses.map(outcome).sort();
      expect(outcomes[0]).toBe('200');
      expect(['409 campaign_not_draft', '412 version_mismatch']).toContain(outcomes[1]);
      expect((await api.get(draft.id)).json()).toMatchObject({ status: 'scheduled', version: 2 });
    });
  });

  describe('not found', () => {
    it('answers 404 campaign_not_found for an unknown campaign on every campaign route', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.owner.token);
      const responses = await unchanged(f, async () => [
        await api.get('cmp_DoesNotExist'),
        await api.patch('cmp_DoesNotExist', { subject: 'x' }),
        await api.schedule('cmp_DoesNotExist'),
      ]);
      expect(responses.map(outcome)).toEqual(Array(3).fill('404 campaign_not_found'));
    });

    it("answers 404 campaign_not_found for another workspace's campaign through this workspace's path, leaking nothing", async () => {
      const f = fixture();
      const theirs = await newDraft(f, { name: 'Their secret plan' }, f.otherApiKey, f.otherWorkspaceId);
      for (const caller of [f.owner.token, f.apiKey]) {
        const api = campaignsApi(f, caller);
        const responses = await unchanged(f, async () => [
          await api.get(theirs.id),
          await api.patch(theirs.id, { subject: 'Hijacked' }),
          await api.schedule(theirs.id),
        ]);
        expect(responses.map(outcome)).toEqual(Array(3).fill('404 campaign_not_found'));
        for (const response of responses) expect(response.body).not.toContain('Their secret plan');
        const listing = (await api.list('?limit=100')).body;
        expect(listing).not.toContain(theirs.id);
      }
      const stored = await campaignsApi(f, f.otherApiKey, f.otherWorkspaceId).get(theirs.id);
      expect(stored.json()).toEqual(theirs);
    });
  });

  describe('invalid input', () => {
    for (const invalid of INVALID_CREATE) {
      it(`refuses to create a draft with ${invalid.case}: 400 naming ${invalid.fields.map((field) => `"${field}"`).join(', ')}, and changes nothing`, async () => {
        const f = fixture();
        const response = await unchanged(f, () => campaignsApi(f, f.apiKey).create(invalid.body));
        expectFields(response, invalid.fields);
      });
    }

    for (const invalid of INVALID_PATCH) {
      it(`refuses an edit with ${invalid.case}: 400 naming ${invalid.fields.map((field) => `"${field}"`).join(', ')}, and changes nothing`, async () => {
        const f = fixture();
        const draft = await newDraft(f);
        const response = await unchanged(f, () =>
          campaignsApi(f, f.owner.token).patch(draft.id, invalid.body),
        );
        expectFields(response, invalid.fields);
      });
    }

    it('accepts bodies at their limits', async () => {
      const f = fixture();
      const response = await campaignsApi(f, f.apiKey).create({
        name: 'n'.repeat(200),
        subject: 's'.repeat(CAMPAIGN_LIMITS.subject),
        preheader: 'p'.repeat(CAMPAIGN_LIMITS.preheader),
        body_html: 'h'.repeat(CAMPAIGN_LIMITS.bodyHtml),
        body_text: 't'.repeat(CAMPAIGN_LIMITS.bodyText),
      });
      expect(response.statusCode).toBe(201);
      const created = response.json<Campaign>();
      const read = (await campaignsApi(f, f.apiKey).get(created.id)).json<Campaign>();
      expect(read.body_html).toHaveLength(CAMPAIGN_LIMITS.bodyHtml);
      expect(read.body_text).toHaveLength(CAMPAIGN_LIMITS.bodyText);
    });

    it('answers 413 payload_too_large to a body over 4 MiB, on create and on edit, and changes nothing', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      const rawBody = JSON.stringify({ name: 'Huge', body_html: 'x'.repeat(CAMPAIGN_BODY_LIMIT) });
      const api = campaignsApi(f, f.apiKey);
      const responses = await unchanged(f, async () => [
        await api.create(undefined, { rawBody }),
        await api.patch(draft.id, undefined, undefined, { rawBody }),
      ]);
      expect(responses.map(outcome)).toEqual(['413 payload_too_large', '413 payload_too_large']);
    });

    it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON', async () => {
      const f = fixture();
      const api = campaignsApi(f, f.owner.token);
      const responses = await unchanged(f, async () => [
        await api.create(undefined, { rawBody: '{"name":' }),
        await api.create(undefined, { rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }),
      ]);
      expect(responses.map(outcome)).toEqual(['400 invalid_json', '415 unsupported_media_type']);
    });

    it.each([
      ['not base64 JSON', 'nope'],
      ['an empty JSON array', cursorOf([])],
      ['numbers', cursorOf([1, 2])],
      ['an object', cursorOf({ created_at: '2026-11-20T10:00:00.000Z', id: 'cmp_x' })],
      ['a time that is not a time', cursorOf(['not a time', 'cmp_x'])],
      ['a date without a time', cursorOf(['2026-11-20', 'cmp_x'])],
      ['an id with a NUL character', cursorOf(['2026-11-20T10:00:00.000Z', 'cmp_\u0000'])],
      ['an over-long cursor', 'a'.repeat(513)],
    ])('answers 400 invalid_request naming cursor to a cursor of %s', async (_label, cursor) => {
      const f = fixture();
      const response = await campaignsApi(f, f.owner.token).list(`?cursor=${encodeURIComponent(cursor)}`);
      expectFields(response, ['cursor']);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=-1', 'limit'],
      ['limit=2.5', 'limit'],
      ['limit=ten', 'limit'],
      ['status=archived', 'status'],
      ['sort=name', 'sort'],
    ])('answers 400 invalid_request to ?%s, naming %s', async (query, field) => {
      const f = fixture();
      const response = await campaignsApi(f, f.owner.token).list(`?${query}`);
      expectFields(response, [field]);
    });

    it('accepts the limits 1 and 100', async () => {
      const f = fixture();
      await newDraft(f);
      const api = campaignsApi(f, f.owner.token);
      expect((await api.list('?limit=1')).json()).toMatchObject({ campaigns: [expect.anything()] });
      expect((await api.list('?limit=100')).statusCode).toBe(200);
    });
  });

  it('answers 404 workspace_not_found on a workspace that does not exist', async () => {
    const f = fixture();
    const response = await call(f, f.owner.token, 'GET', campaignsUrl('ws_DoesNotExist0000000000000'));
    expect(outcome(response)).toBe('404 workspace_not_found');
  });

  describe('GET …/campaigns/{campaign_id}/check', () => {
    const checkUrl = (workspaceId: string, campaignId: string) =>
      `${campaignsUrl(workspaceId)}/${campaignId}/check`;

    it('answers 401 missing_token without a credential', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      expect(outcome(await call(f, undefined, 'GET', checkUrl(f.workspaceId, draft.id)))).toBe(
        '401 missing_token',
      );
    });

    it('answers 404 campaign_not_found for a campaign the workspace does not have', async () => {
      const f = fixture();
      const response = await call(
        f,
        f.owner.token,
        'GET',
        checkUrl(f.workspaceId, 'cmp_DoesNotExist000000000'),
      );
      expect(outcome(response)).toBe('404 campaign_not_found');
    });

    it('answers 404 workspace_not_found on a workspace that does not exist', async () => {
      const f = fixture();
      const response = await call(f, f.owner.token, 'GET', checkUrl('ws_DoesNotExist0000000000000', 'cmp_x'));
      expect(outcome(response)).toBe('404 workspace_not_found');
    });

    it('answers 404 not_found to any other method than GET', async () => {
      const f = fixture();
      const draft = await newDraft(f);
      const response = await call(f, f.owner.token, 'POST', checkUrl(f.workspaceId, draft.id), { body: {} });
      expect(response.statusCode).toBe(404);
    });
  });
});
