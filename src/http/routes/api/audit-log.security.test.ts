import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, auditLogUrl, call, outcome, refused, useFixture } from '#test/support/http-fixture.js';

describeEachBackend('Audit log (GET /api/v1/workspaces/{id}/audit-log): security', (backend) => {
  const fixture = useFixture(backend);

  it('answers 403 insufficient_role to a member, showing no event', async () => {
    const f = fixture();
    const response = await refused(
      f,
      () => call(f, f.member.token, 'GET', auditLogUrl(f.workspaceId)),
      '403 insufficient_role',
    );
    expect(response.body).not.toContain('workspace.created');
  });

  it("answers 403 workspace_forbidden to another workspace's owner, and keeps each workspace's events to itself", async () => {
    const f = fixture();
    const response = await refused(
      f,
      () => call(f, f.otherOwner.token, 'GET', auditLogUrl(f.workspaceId)),
      '403 workspace_forbidden',
    );
    expect(response.body).not.toContain('workspace.created');
    const theirs = await auditLog(f, f.otherWorkspaceId);
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.every((event) => event.target.id !== f.workspaceId)).toBe(true);
    const ours = new Set((await auditLog(f)).map((event) => event.id));
    expect(theirs.filter((event) => ours.has(event.id))).toEqual([]);
  });

  it('refuses keys and anonymous callers', async () => {
    const f = fixture();
    const url = auditLogUrl(f.workspaceId);
    const outcomes = [
      await call(f, f.brandKey, 'GET', url),
      await call(f, f.apiKey, 'GET', url),
      await call(f, undefined, 'GET', url),
    ].map(outcome);
    expect(outcomes).toEqual(['403 brand_key_not_allowed', '403 api_key_not_allowed', '401 missing_token']);
  });
});
