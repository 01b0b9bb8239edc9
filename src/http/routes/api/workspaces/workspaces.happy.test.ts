import { expect, it } from 'vitest';
import type { Workspace } from '../../../../contract/workspaces.js';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, call, isoNow, outcome, useFixture } from '#test/support/http-fixture.js';

const WORKSPACES = '/api/v1/workspaces';

describeEachBackend('Workspaces (GET and POST /api/v1/workspaces): the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('creates a workspace with 201, the caller its owner; it is listed at once and in its audit log', async () => {
    const f = fixture();
    const response = await call(f, f.member.token, 'POST', WORKSPACES, { body: { name: '  Side Project ' } });
    expect(response.statusCode).toBe(201);
    const created = response.json<Workspace>();
    expect(created).toEqual({
      id: expect.stringMatching(/^ws_[0-9A-Za-z]{20,}$/) as string,
      name: 'Side Project',
      created_at: isoNow(f),
      role: 'owner',
    });
    const listed = await call(f, f.member.token, 'GET', WORKSPACES);
    expect(listed.json<{ workspaces: Workspace[] }>().workspaces).toContainEqual(created);
    const members = await call(f, f.member.token, 'GET', `${WORKSPACES}/${created.id}/members`);
    expect(outcome(members)).toBe('200');
  });

  it("lists the caller's workspaces with the caller's role in each", async () => {
    const f = fixture();
    for (const [who, role] of [
      [f.owner, 'owner'],
      [f.admin, 'admin'],
      [f.member, 'member'],
    ] as const) {
      const response = await call(f, who.token, 'GET', WORKSPACES);
      expect(response.statusCode).toBe(200);
      expect(response.json<{ workspaces: Workspace[] }>().workspaces).toContainEqual(
        expect.objectContaining({ id: f.workspaceId, name: 'Acme Coffee', role }),
      );
    }
  });

  it("records the creation in the new workspace's audit log, by its creator", async () => {
    const f = fixture();
    const created = (
      await call(f, f.owner.token, 'POST', WORKSPACES, { body: { name: 'Audited' } })
    ).json<Workspace>();
    const events = await call(f, f.owner.token, 'GET', `${WORKSPACES}/${created.id}/audit-log`);
    expect(events.json<{ events: { action: string; actor: unknown }[] }>().events).toEqual([
      expect.objectContaining({
        action: 'workspace.created',
        actor: { type: 'user', id: f.owner.user.id, email: f.owner.user.email },
      }),
    ]);
    expect((await auditLog(f)).map((event) => event.target.id)).not.toContain(created.id);
  });
});
