import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLogUrl, call, problemOf, refused, useFixture } from '#test/support/http-fixture.js';

describeEachBackend('Audit log (GET /api/v1/workspaces/{id}/audit-log): errors', (backend) => {
  const fixture = useFixture(backend);

  it('refuses a limit outside 1..200 or not a number with 400 naming it', async () => {
    const f = fixture();
    for (const limit of ['0', '201', 'ten', '1.5']) {
      const response = await refused(
        f,
        () => call(f, f.owner.token, 'GET', `${auditLogUrl(f.workspaceId)}?limit=${limit}`),
        '400 invalid_request',
      );
      expect(problemOf(response).errors?.map((e) => e.field)).toEqual(['limit']);
    }
  });

  it('refuses a cursor no page gave with 400 naming it', async () => {
    const f = fixture();
    for (const cursor of ['bm90LWEtbnVtYmVy', 'LTE', 'x'.repeat(65)]) {
      const response = await refused(
        f,
        () => call(f, f.owner.token, 'GET', `${auditLogUrl(f.workspaceId)}?cursor=${cursor}`),
        '400 invalid_request',
      );
      expect(problemOf(response).errors?.map((e) => e.field)).toEqual(['cursor']);
    }
  });

  it('answers 404 workspace_not_found for a workspace that does not exist', async () => {
    const f = fixture();
    await refused(
      f,
      () => call(f, f.owner.token, 'GET', auditLogUrl('ws_DoesNotExist')),
      '404 workspace_not_found',
    );
  });
});
