import { expect, it } from 'vitest';
import type { WorkspaceDetails } from '../../../../contract/workspaces.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, expectNonJsonRefused, type Problem, refused, useFixture } from '#test/support/http-fixture.js';
import { demoWithVoice, draftApi, resetReview, workspaceUrl } from '#test/support/fixtures/brand-draft.js';

describeEachBackend('Workspace (GET and PATCH /api/v1/workspaces/{id}): errors', (backend) => {
  const fixture = useFixture(backend);
  const draft = draftApi(fixture);

  const patch = (body: unknown) =>
    call(fixture(), fixture().owner.token, 'PATCH', workspaceUrl(fixture().workspaceId), { body });

  it('refuses to turn review off while a draft waits: 409 draft_pending, the setting and the draft kept', async () => {
    const f = fixture();
    await resetReview(f, 'required');
    const saved = await draft.put(demoWithVoice('Waiting.'));

    const response = await refused(f, () => patch({ brand_review: 'off' }), '409 draft_pending');

    expect(response.json<Problem>().resolution).toMatch(/publish or discard the draft first/i);
    expect((await draft.get()).body).toBe(saved.body);
    const current = await call(f, f.owner.token, 'GET', workspaceUrl(f.workspaceId));
    expect(current.json<WorkspaceDetails>().brand_review).toBe('required');
    // A rename in the same request is refused with it.
    await refused(f, () => patch({ name: 'Renamed', brand_review: 'off' }), '409 draft_pending');
  });

  const INVALID: { case: string; body: unknown; fields: string[] }[] = [
    { case: 'an empty body', body: {}, fields: [''] },
    { case: 'an unknown review mode', body: { brand_review: 'sometimes' }, fields: ['brand_review'] },
    { case: 'an empty name', body: { name: '   ' }, fields: ['name'] },
    { case: 'a name on two lines', body: { name: 'Acme\nCoffee' }, fields: ['name'] },
    { case: 'a name over 200 characters', body: { name: 'x'.repeat(201) }, fields: ['name'] },
    { case: 'an unknown field', body: { brand_review: 'off', plan: 'pro' }, fields: ['plan'] },
    { case: 'a body that is not an object', body: ['off'], fields: [''] },
  ];
  for (const invalid of INVALID) {
    it(`refuses ${invalid.case} with 400 invalid_request naming ${invalid.fields.map((f) => `"${f}"`).join(', ')}, and changes nothing`, async () => {
      const f = fixture();
      const response = await refused(f, () => patch(invalid.body), '400 invalid_request');
      expect((response.json<Problem>().errors ?? []).map((issue) => issue.field)).toEqual(invalid.fields);
    });
  }

  it('answers 404 workspace_not_found to GET and PATCH on a workspace that does not exist', async () => {
    const f = fixture();
    const url = workspaceUrl('ws_DoesNotExist');
    await refused(f, () => call(f, f.owner.token, 'GET', url), '404 workspace_not_found');
    await refused(
      f,
      () => call(f, f.owner.token, 'PATCH', url, { body: { brand_review: 'required' } }),
      '404 workspace_not_found',
    );
  });

  it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON, and changes nothing', async () => {
    const f = fixture();
    await expectNonJsonRefused(f, f.owner.token, 'PATCH', workspaceUrl(f.workspaceId));
  });
});
