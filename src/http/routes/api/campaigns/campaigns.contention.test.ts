import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { type AuditEvent, call, type Fixture, outcome, useFixture } from '#test/support/http-fixture.js';
import { type Campaign, campaignsApi, newDraft } from '#test/support/fixtures/campaigns.js';

/** As many concurrent edits as the contention run that found 412s without If-Match. */
const EDITS = 160;

/** Every audit event of the workspace about one campaign, read through the API page by page. */
async function auditOf(f: Fixture, campaignId: string): Promise<AuditEvent[]> {
  const events: AuditEvent[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? '' : `&cursor=${cursor}`;
    const response = await call(
      f,
      f.owner.token,
      'GET',
      `/api/v1/workspaces/${f.workspaceId}/audit-log?limit=200${query}`,
    );
    const page = response.json<{ events: AuditEvent[]; next_cursor: string | null }>();
    events.push(...page.events);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return events.filter((event) => event.target.id === campaignId);
}

describeEachBackend('Campaign drafts API under contention', (backend) => {
  const fixture = useFixture(backend);

  it(`applies ${String(EDITS)} concurrent edits without If-Match, every one answered 200, each raising the version by one with its own audit entry`, async () => {
    const f = fixture();
    const api = campaignsApi(f, f.apiKey);
    const draft = await newDraft(f);

    const responses = await Promise.all(
      Array.from({ length: EDITS }, (_, i) => api.patch(draft.id, { body_text: `edit ${String(i)}` })),
    );

    expect(responses.map(outcome)).toEqual(Array.from({ length: EDITS }, () => '200'));
    const versions = responses.map((response) => response.json<Campaign>().version).sort((a, b) => a - b);
    expect(versions).toEqual(Array.from({ length: EDITS }, (_, i) => i + 2));
    const stored = (await api.get(draft.id)).json<Campaign>();
    expect(stored.version).toBe(1 + EDITS);
    // The last edit applied is the one that answered with the final version.
    const last = responses.find((response) => response.json<Campaign>().version === stored.version);
    expect(stored.body_text).toBe(last?.json<Campaign>().body_text);
    const audit = await auditOf(f, draft.id);
    expect(audit.filter((event) => event.action === 'campaign.updated')).toHaveLength(EDITS);
  });

  it(`lets exactly one of ${String(EDITS)} concurrent edits with the same If-Match through; the others answer 412 and change nothing`, async () => {
    const f = fixture();
    const api = campaignsApi(f, f.apiKey);
    const draft = await newDraft(f);

    const responses = await Promise.all(
      Array.from({ length: EDITS }, (_, i) => api.patch(draft.id, { body_text: `edit ${String(i)}` }, '"1"')),
    );

    const outcomes = responses.map(outcome);
    expect(outcomes.filter((result) => result === '200')).toHaveLength(1);
    expect(outcomes.filter((result) => result === '412 version_mismatch')).toHaveLength(EDITS - 1);
    const winner = responses.find((response) => response.statusCode === 200)?.json<Campaign>();
    expect(winner?.version).toBe(2);
    expect((await api.get(draft.id)).json()).toEqual(winner);
    const audit = await auditOf(f, draft.id);
    expect(audit.filter((event) => event.action === 'campaign.updated')).toHaveLength(1);
  });

  it('applies concurrent edits without If-Match only while the campaign is a draft: those after its scheduling answer 409', async () => {
    const f = fixture();
    const api = campaignsApi(f, f.apiKey);
    const draft = await newDraft(f);

    const edits = Array.from({ length: EDITS / 2 }, (_, i) =>
      api.patch(draft.id, { body_text: `edit ${String(i)}` }),
    );
    const schedule = api.schedule(draft.id);
    const more = Array.from({ length: EDITS / 2 }, (_, i) =>
      api.patch(draft.id, { body_text: `late edit ${String(i)}` }),
    );
    const [scheduled, ...responses] = await Promise.all([schedule, ...edits, ...more]);

    expect(outcome(scheduled)).toBe('200');
    const outcomes = responses.map(outcome);
    expect(outcomes.filter((result) => result !== '200' && result !== '409 campaign_not_draft')).toEqual([]);
    const applied = responses.filter((response) => response.statusCode === 200);
    const stored = (await api.get(draft.id)).json<Campaign>();
    // Every applied edit and the scheduling raised the version once; nothing was applied after scheduling.
    expect(stored).toMatchObject({ status: 'scheduled', version: 1 + applied.length + 1 });
    expect(scheduled.json<Campaign>()).toEqual(stored);
    const audit = await auditOf(f, draft.id);
    expect(audit.filter((event) => event.action === 'campaign.updated')).toHaveLength(applied.length);
  });
});
