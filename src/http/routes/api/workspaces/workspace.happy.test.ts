import { beforeEach, expect, it } from 'vitest';
import type { WorkspaceDetails } from '../../../../contract/workspaces.js';
import type { BrandContext } from '../../../../core/brand-context.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { auditLog, call, useFixture } from '#test/support/http-fixture.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import {
  brandEvents,
  brandWatcher,
  demoWithVoice,
  draftApi,
  resetReview,
  workspaceUrl,
} from '#test/support/fixtures/brand-draft.js';

describeEachBackend('Workspace (GET and PATCH /api/v1/workspaces/{id}): the happy paths', (backend) => {
  const fixture = useFixture(backend);
  const brand = brandApi(fixture);
  const draft = draftApi(fixture);

  const patch = (body: unknown, token = fixture().owner.token) =>
    call(fixture(), token, 'PATCH', workspaceUrl(fixture().workspaceId), { body });

  beforeEach(async () => {
    await resetReview(fixture(), 'off');
  });

  it('shows every member the workspace, its review setting (off by default) and their own role', async () => {
    const f = fixture();
    for (const [who, role] of [
      [f.owner, 'owner'],
      [f.admin, 'admin'],
      [f.member, 'member'],
    ] as const) {
      const response = await call(f, who.token, 'GET', workspaceUrl(f.workspaceId));
      expect(response.statusCode).toBe(200);
      expect(response.json<WorkspaceDetails>()).toEqual({
        id: f.workspaceId,
        name: (await brand.get()).json<BrandContext>().name,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) as string,
        role,
        brand_review: 'off',
      });
    }
  });

  it('turns review on and off for an admin, answering the workspace as it is now, each change in the audit log', async () => {
    const f = fixture();
    const on = await patch({ brand_review: 'required' }, f.admin.token);
    expect(on.statusCode).toBe(200);
    expect(on.json<WorkspaceDetails>()).toMatchObject({
      id: f.workspaceId,
      brand_review: 'required',
      role: 'admin',
    });
    expect((await call(f, f.member.token, 'GET', workspaceUrl(f.workspaceId))).json()).toMatchObject({
      brand_review: 'required',
    });
    expect((await auditLog(f))[0]).toMatchObject({
      action: 'workspace.updated',
      actor: { type: 'user', id: f.admin.user.id },
      target: { type: 'workspace', id: f.workspaceId },
      details: { brand_review: 'required' },
    });

    const off = await patch({ brand_review: 'off' });
    expect(off.json<WorkspaceDetails>()).toMatchObject({ brand_review: 'off', role: 'owner' });
    expect((await auditLog(f))[0]?.details).toEqual({ brand_review: 'off' });
    // Review off again: the brand is saved directly.
    expect((await brand.put(demoWithVoice('Saved directly.'))).statusCode).toBe(200);
  });

  it('renames the workspace as a new version of the brand, with brand.updated, also while review is on', async () => {
    const f = fixture();
    const webhookId = await brandWatcher(f);
    await resetReview(f, 'required');
    const before = (await brand.get()).json<BrandContext>();
    f.clock.advance(MINUTE_MS);

    const response = await patch({ name: '  Acme Coffee Co. ' });

    expect(response.statusCode).toBe(200);
    expect(response.json<WorkspaceDetails>()).toMatchObject({
      name: 'Acme Coffee Co.',
      brand_review: 'required',
    });
    const after = (await brand.get()).json<BrandContext>();
    expect(after).toMatchObject({ name: 'Acme Coffee Co.', version: before.version + 1 });
    expect((await brand.read()).json<BrandContext>().name).toBe('Acme Coffee Co.');
    const [event] = await brandEvents(f, webhookId);
    expect(event).toMatchObject({
      type: 'brand.updated',
      data: { version: after.version, note: null, changed: ['name'] },
    });
    const record = await f.store.brand.getVersion(f.workspaceId, after.version);
    expect(record?.record).toMatchObject({ sectionsChanged: ['name'], actorId: f.owner.user.id });
    expect(
      (await auditLog(f))
        .slice(0, 2)
        .map((entry) => entry.action)
        .sort(),
    ).toEqual(['brand.updated', 'workspace.updated']);
    const listed = await call(f, f.owner.token, 'GET', '/api/v1/workspaces');
    expect(listed.json<{ workspaces: { id: string; name: string }[] }>().workspaces).toContainEqual(
      expect.objectContaining({ id: f.workspaceId, name: 'Acme Coffee Co.' }),
    );
  });

  it('changes nothing, not even the audit log, when the values sent are the current ones', async () => {
    const f = fixture();
    const current = (
      await call(f, f.owner.token, 'GET', workspaceUrl(f.workspaceId))
    ).json<WorkspaceDetails>();
    const tables = await snapshotTables(f.database.config);

    const response = await patch({ name: current.name, brand_review: 'off' });

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(current);
    expect(await snapshotTables(f.database.config)).toEqual(tables);
  });

  it('turns review off once the draft is published or discarded', async () => {
    await resetReview(fixture(), 'required');
    await draft.put(demoWithVoice('Waiting for review.'));
    expect((await draft.discard()).statusCode).toBe(204);
    const response = await patch({ brand_review: 'off' });
    expect(response.statusCode).toBe(200);
    expect(response.json<WorkspaceDetails>().brand_review).toBe('off');
  });
});
