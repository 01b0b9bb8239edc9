import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { parseBrandDocument } from '../../../../core/brand-context.js';
import { OPERATOR } from '../../../../services/audit/audit.js';
import { replaceBrand } from '../../../../services/brand/brand.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { createApiKey } from '../../../../services/keys/keys.js';
import { createWorkspace } from '../../../../services/accounts/workspaces.js';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, call, type Fixture, isoNow, unchanged, useFixture } from '#test/support/http-fixture.js';
import { type BrandCheckResult, publishCheckRules } from '#test/support/fixtures/brand-check.js';
import {
  type Campaign,
  type CampaignPage,
  campaignsApi,
  campaignUrl,
  MINUTE_MS,
  newDraft,
} from '#test/support/fixtures/campaigns.js';

/** The version of the workspace's published brand now. */
async function publishedVersion(f: Fixture): Promise<number> {
  const brand = await f.deps.store.brand.get(f.workspaceId);
  if (!brand) throw new Error('no brand');
  return brand.version;
}

describeEachBackend('Campaign drafts API: the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('creates a draft with 201, a Location that reads it back, and the ETag of version 1', async () => {
    const f = fixture();
    f.clock.advance(MINUTE_MS);
    const api = campaignsApi(f, f.owner.token);
    const input = {
      name: 'November newsletter',
      subject: 'Fresh beans, plainly',
      preheader: 'Three new single origins',
      body_html: '<h1>Hello ☕</h1>',
      body_text: 'Hello ☕',
    };

    const response = await api.create(input);

    expect(response.statusCode).toBe(201);
    const created = response.json<Campaign>();
    expect(created).toEqual({
      ...input,
      id: expect.stringMatching(/^cmp_/) as string,
      workspace_id: f.workspaceId,
      status: 'draft',
      version: 1,
      brand_version: await publishedVersion(f),
      created_at: isoNow(f),
      updated_at: isoNow(f),
    });
    expect(response.headers.etag).toBe('"1"');
    expect(response.headers.location).toBe(`/api/v1/workspaces/${f.workspaceId}/campaigns/${created.id}`);

    const read = await f.app.inject({
      method: 'GET',
      url: String(response.headers.location),
      headers: { authorization: `Bearer ${f.owner.token}` },
    });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toEqual(created);
    expect(read.headers.etag).toBe('"1"');
    expect(read.headers['cache-control']).toBe('private, no-cache');
  });

  it('records the brand version a draft is written against at creation and at each edit, not when it is scheduled', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.owner.token);
    const before = await publishedVersion(f);
    const draft = await newDraft(f);
    expect(draft.brand_version).toBe(before);

    await replaceBrand(
      f.deps,
      OPERATOR,
      f.workspaceId,
      parseBrandDocument({ ...DEMO_BRAND, voice: 'Warm.' }),
    );
    expect((await api.get(draft.id)).json<Campaign>().brand_version).toBe(before);
    const edited = await api.patch(draft.id, { subject: 'Written against the new voice' }, '"1"');
    expect(edited.json<Campaign>().brand_version).toBe(before + 1);
    expect((await api.get(draft.id)).json<Campaign>().brand_version).toBe(before + 1);
    const listed = await api.list('?limit=100');
    expect(listed.json<CampaignPage>().campaigns.find((c) => c.id === draft.id)?.brand_version).toBe(
      before + 1,
    );

    await replaceBrand(f.deps, OPERATOR, f.workspaceId, parseBrandDocument(DEMO_BRAND));
    const scheduled = await api.schedule(draft.id, '"2"');
    expect(scheduled.json<Campaign>()).toMatchObject({ status: 'scheduled', brand_version: before + 1 });
  });

  it('fills the fields a new draft leaves out with empty strings and trims its name', async () => {
    const f = fixture();
    const response = await campaignsApi(f, f.owner.token).create({ name: '  Just a name  ' });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({
      name: 'Just a name',
      subject: '',
      preheader: '',
      body_html: '',
      body_text: '',
      status: 'draft',
    });
  });

  it('moves version, updated_at and the ETag on an edit with If-Match, and changes only the fields it names', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.owner.token);
    const draft = await newDraft(f);
    f.clock.advance(MINUTE_MS);

    const response = await api.patch(draft.id, { subject: 'Edited subject', body_text: '' }, '"1"');

    expect(response.statusCode).toBe(200);
    const edited = response.json<Campaign>();
    expect(edited).toEqual({
      ...draft,
      subject: 'Edited subject',
      body_text: '',
      version: 2,
      updated_at: isoNow(f),
    });
    expect(edited.created_at).toBe(draft.created_at);
    expect(response.headers.etag).toBe('"2"');
    const read = await api.get(draft.id);
    expect(read.json()).toEqual(edited);
    expect(read.headers.etag).toBe('"2"');

    f.clock.advance(MINUTE_MS);
    const again = await api.patch(draft.id, { name: 'Renamed' }, String(read.headers.etag));
    expect(again.statusCode).toBe(200);
    expect(again.json()).toEqual({ ...edited, name: 'Renamed', version: 3, updated_at: isoNow(f) });
    expect(again.headers.etag).toBe('"3"');
  });

  it('accepts an edit without If-Match, with If-Match: *, with a weak tag and with a list naming the version', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.owner.token);
    const draft = await newDraft(f);
    const steps: [string | undefined, number][] = [
      [undefined, 2],
      ['*', 3],
      ['W/"3"', 4],
      ['"1", "4"', 5],
    ];
    for (const [ifMatch, version] of steps) {
      const response = await api.patch(draft.id, { subject: `Version ${version}` }, ifMatch);
      expect(response.statusCode, `If-Match: ${String(ifMatch)}`).toBe(200);
      expect(response.json<Campaign>()).toMatchObject({ version, subject: `Version ${version}` });
    }
  });

  it('lets a member create, read, list and edit drafts', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.member.token);
    const created = await api.create({ name: 'Member draft' });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<Campaign>();
    expect((await api.get(id)).statusCode).toBe(200);
    const edited = await api.patch(id, { body_html: '<p>By a member</p>' }, '"1"');
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ version: 2, body_html: '<p>By a member</p>' });
    const listed = await api.list('?limit=100');
    expect(listed.statusCode).toBe(200);
    expect(listed.json<CampaignPage>().campaigns.map((campaign) => campaign.id)).toContain(id);
  });

  it('lets a workspace API key do everything a member can, and schedule too', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.apiKey);
    const created = await api.create({ name: 'Pipeline draft', subject: 'From the pipeline' });
    expect(created.statusCode).toBe(201);
    const { id } = created.json<Campaign>();
    expect((await api.get(id)).json()).toEqual(created.json());
    expect((await api.patch(id, { preheader: 'Automated' }, '"1"')).statusCode).toBe(200);
    const listed = await api.list('?limit=100');
    expect(listed.json<CampaignPage>().campaigns.map((campaign) => campaign.id)).toContain(id);

    f.clock.advance(MINUTE_MS);
    const scheduled = await api.schedule(id, '"2"');

    expect(scheduled.statusCode).toBe(200);
    expect(scheduled.json()).toMatchObject({
      id,
      status: 'scheduled',
      version: 3,
      preheader: 'Automated',
      updated_at: isoNow(f),
    });
    expect(scheduled.headers.etag).toBe('"3"');
    expect((await api.get(id)).json()).toMatchObject({ status: 'scheduled', version: 3 });
  });

  it('lets owners and admins schedule a draft, with or without If-Match', async () => {
    const f = fixture();
    for (const [caller, token, ifMatch] of [
      ['owner', f.owner.token, '"1"'],
      ['admin', f.admin.token, undefined],
    ] as const) {
      const draft = await newDraft(f);
      const response = await campaignsApi(f, token).schedule(draft.id, ifMatch);
      expect(response.statusCode, caller).toBe(200);
      expect(response.json(), caller).toMatchObject({ status: 'scheduled', version: 2 });
    }
  });

  it('records campaign.created, campaign.updated and campaign.scheduled with the user who acted', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.owner.token);
    const { id } = (await api.create({ name: 'Audited' })).json<Campaign>();
    await api.patch(id, { subject: 'Audited subject', body_text: 'x' });
    await api.schedule(id);

    const events = (await auditLog(f)).filter((event) => event.target.id === id);

    const actor = { type: 'user', id: f.owner.user.id, email: f.owner.user.email };
    expect(events).toEqual([
      expect.objectContaining({ action: 'campaign.scheduled', actor, target: { type: 'campaign', id } }),
      expect.objectContaining({
        action: 'campaign.updated',
        actor,
        details: expect.objectContaining({ fields: 'subject, body_text' }) as unknown,
      }),
      expect.objectContaining({ action: 'campaign.created', actor, details: { name: 'Audited' } }),
    ]);
  });

  describe('listing', () => {
    /** Every page of a listing, following next_cursor (at most 20 pages). */
    async function allPages(list: (query: string) => Promise<LightMyRequestResponse>, query: string) {
      const pages: CampaignPage[] = [];
      let cursor: string | null = null;
      do {
        const suffix = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const response = await list(`?${query}${suffix}`);
        expect(response.statusCode).toBe(200);
        const page = response.json<CampaignPage>();
        pages.push(page);
        cursor = page.next_cursor;
      } while (cursor !== null && pages.length < 20);
      return pages;
    }

    it('lists every campaign exactly once across pages of 7, newest first, the last page with next_cursor null', async () => {
      const f = fixture();
      const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Paging Co' });
      const { key } = await createApiKey(f.deps, OPERATOR, { workspaceId, name: 'paging' });
      const api = campaignsApi(f, key, workspaceId);
      // The clock moves before every fourth campaign: most share their created_at with others.
      const created: Campaign[] = [];
      for (let i = 0; i < 25; i++) {
        if (i % 4 === 0) f.clock.advance(1_000);
        const response = await api.create({ name: `Campaign ${String(i)}`, body_html: '<p>body</p>' });
        created.push(response.json<Campaign>());
      }
      expect(new Set(created.map((c) => c.created_at)).size).toBe(7);

      const pages = await allPages(api.list, 'limit=7');

      expect(pages.map((page) => page.campaigns.length)).toEqual([7, 7, 7, 4]);
      expect(pages.at(-1)?.next_cursor).toBeNull();
      const listed = pages.flatMap((page) => page.campaigns);
      expect(listed.map((c) => c.id).sort()).toEqual(created.map((c) => c.id).sort());
      const times = listed.map((c) => c.created_at);
      expect(times).toEqual([...times].sort().reverse());
      expect(times[0]).toBe(created.at(-1)?.created_at);
      // Summaries: everything but the bodies.
      for (const campaign of created) {
        const { body_html: _html, body_text: _text, ...summary } = campaign;
        expect(listed.find((c) => c.id === campaign.id)).toEqual(summary);
      }

      // A page size that divides the total still ends with next_cursor null, not with an empty page.
      const byFive = await allPages(api.list, 'limit=5');
      expect(byFive.map((page) => page.campaigns.length)).toEqual([5, 5, 5, 5, 5]);
      expect(byFive.flatMap((page) => page.campaigns.map((c) => c.id))).toEqual(listed.map((c) => c.id));
    });

    it('pages 20 by default, and an edit does not move a campaign in the listing', async () => {
      const f = fixture();
      const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Default Co' });
      const { key } = await createApiKey(f.deps, OPERATOR, { workspaceId, name: 'default' });
      const api = campaignsApi(f, key, workspaceId);
      const ids: string[] = [];
      for (let i = 0; i < 21; i++) {
        f.clock.advance(1_000);
        ids.push((await api.create({ name: `Default ${String(i)}` })).json<Campaign>().id);
      }
      f.clock.advance(MINUTE_MS);
      expect((await api.patch(ids[0] ?? '', { name: 'Edited last' })).statusCode).toBe(200);

      const first = (await api.list()).json<CampaignPage>();

      expect(first.campaigns.map((c) => c.id)).toEqual(ids.slice(1).reverse());
      expect(first.next_cursor).not.toBeNull();
      const rest = (
        await api.list(`?cursor=${encodeURIComponent(first.next_cursor ?? '')}`)
      ).json<CampaignPage>();
      expect(rest).toEqual({
        campaigns: [expect.objectContaining({ id: ids[0], name: 'Edited last', version: 2 })],
        next_cursor: null,
      });
    });

    it('filters the listing by status, also across pages', async () => {
      const f = fixture();
      const { id: workspaceId } = await createWorkspace(f.deps, OPERATOR, { name: 'Status Co' });
      const { key } = await createApiKey(f.deps, OPERATOR, { workspaceId, name: 'status' });
      const api = campaignsApi(f, key, workspaceId);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++)
        ids.push((await api.create({ name: `Status ${String(i)}` })).json<Campaign>().id);
      const scheduled = [ids[1], ids[3], ids[4]].map(String);
      for (const id of scheduled) expect((await api.schedule(id)).statusCode).toBe(200);

      const listed = async (status: string) => {
        const pages = await allPages(api.list, `status=${status}&limit=2`);
        for (const page of pages) for (const c of page.campaigns) expect(c.status).toBe(status);
        return pages.flatMap((page) => page.campaigns.map((c) => c.id)).sort();
      };
      expect(await listed('scheduled')).toEqual([...scheduled].sort());
      expect(await listed('draft')).toEqual(ids.filter((id) => !scheduled.includes(id)).sort());
      expect(await listed('sent')).toEqual([]);
      expect((await api.list('?limit=100')).json<CampaignPage>().campaigns).toHaveLength(6);
    });
  });

  // Last: it publishes a brand with rules.
  describe('GET …/campaigns/{campaign_id}/check', () => {
    it("answers the draft's subject, text and HTML checked against the published brand, storing nothing", async () => {
      const f = fixture();
      const version = await publishCheckRules(f);
      const draft = await newDraft(f, {
        subject: 'Cheap beans',
        body_text: 'Grab a cup of joe!!',
        body_html: '<p>Nothing <b>cheap</b> here.</p>',
      });
      const response = await unchanged(f, () =>
        call(f, f.member.token, 'GET', `${campaignUrl(f.workspaceId, draft.id)}/check`),
      );
      expect(response.statusCode).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const result = response.json<BrandCheckResult>();
      expect(result).toMatchObject({ passed: false, version });
      expect(result.findings.map((finding) => [finding.field, finding.rule_id, finding.excerpt])).toEqual([
        ['subject', 'rl_banned', 'Cheap'],
        ['text', 'rl_preferred', 'joe'],
        ['text', 'rl_bang', '!'],
        ['html', 'rl_banned', 'cheap'],
      ]);
      const { findings } = result;
      const source = { subject: draft.subject, text: draft.body_text, html: draft.body_html };
      for (const finding of findings)
        if (finding.field !== null)
          expect(source[finding.field].slice(finding.start ?? 0, finding.end ?? 0)).toBe(finding.excerpt);
    });

    it('answers a clean draft as passed, with no findings, to the workspace API key too', async () => {
      const f = fixture();
      const version = await publishedVersion(f);
      const draft = await newDraft(f, {
        subject: 'Fresh coffee',
        body_text: 'Roasted this week.',
        body_html: '<p>Hi</p>',
      });
      const response = await call(f, f.apiKey, 'GET', `${campaignUrl(f.workspaceId, draft.id)}/check`);
      expect(response.json()).toEqual({ passed: true, version, findings: [] });
    });
  });
});
