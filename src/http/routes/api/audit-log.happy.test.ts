import { expect, it } from 'vitest';
import type { AuditPage } from '../../../contract/audit.js';
import { OPERATOR } from '../../../services/audit/audit.js';
import { createBrandKey } from '../../../services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { auditLog, auditLogUrl, call, useFixture } from '#test/support/http-fixture.js';

describeEachBackend('Audit log (GET /api/v1/workspaces/{id}/audit-log): the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('shows owners and admins the same events, newest first', async () => {
    const f = fixture();
    await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'audited' });
    const byOwner = await call(f, f.owner.token, 'GET', auditLogUrl(f.workspaceId));
    const byAdmin = await call(f, f.admin.token, 'GET', auditLogUrl(f.workspaceId));
    expect(byOwner.statusCode).toBe(200);
    expect(byAdmin.body).toBe(byOwner.body);
    const { events } = byOwner.json<AuditPage>();
    expect(events[0]).toMatchObject({ action: 'brand_key.created', actor: { type: 'operator' } });
    expect(events.at(-1)).toMatchObject({ action: 'workspace.created', target: { id: f.workspaceId } });
    const times = events.map((event) => event.created_at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  it('pages with limit and next_cursor: every event once, in order, and null after the last page', async () => {
    const f = fixture();
    const all = await auditLog(f);
    expect(all.length).toBeGreaterThan(2);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '?limit=2' : `?limit=2&cursor=${cursor}`;
      const response = await call(f, f.owner.token, 'GET', `${auditLogUrl(f.workspaceId)}${query}`);
      expect(response.statusCode).toBe(200);
      const page = response.json<AuditPage>();
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events.map((event) => event.id));
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor !== null && pages < 100);
    expect(seen).toEqual(all.map((event) => event.id));
    expect(pages).toBe(Math.ceil(all.length / 2));
  });
});
