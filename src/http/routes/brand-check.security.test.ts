import type { LightMyRequestResponse } from 'fastify';
import { expect, it } from 'vitest';
import { OPERATOR } from '../../services/audit/audit.js';
import { createBrandKey, revokeBrandKey } from '../../services/keys/keys.js';
import { describeEachBackend } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { checkCopy, publishCheckRules } from '#test/support/fixtures/brand-check.js';
import { type Fixture, outcome, refused, unchanged, useFixture } from '#test/support/http-fixture.js';

const POLICY = '"reads";q=3;w=60';

/** A key of its own, so each test starts with a whole budget. */
async function newKey(f: Fixture): Promise<string> {
  return (await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'limited' })).key;
}

function readsLeft(response: LightMyRequestResponse): number {
  const match = /^"reads";r=(\d+);t=(\d+)$/.exec(String(response.headers.ratelimit));
  if (!match) throw new Error(`no RateLimit header: ${String(response.headers.ratelimit)}`);
  return Number(match[1]);
}

describeEachBackend('POST /functions/v1/brand-check: security', (backend) => {
  const fixture = useFixture(backend, {
    app: { readLimits: { limit: { points: 3, windowMs: 60_000 } } },
    extend: async (f) => ({ rulesVersion: await publishCheckRules(f) }),
  });

  it("refuses another workspace's brand read key and owner with 403, and writes nothing", async () => {
    const f = fixture();
    const content = { text: 'So cheap!!' };
    await refused(
      f,
      () => checkCopy(f.app, f.workspaceId, content, { credential: f.otherBrandKey }),
      '403 workspace_forbidden',
    );
    await refused(
      f,
      () => checkCopy(f.app, f.workspaceId, content, { credential: f.otherOwner.token }),
      '403 workspace_forbidden',
    );
  });

  it('tells a foreign key nothing of a pinned version: 403 whether the version exists or not', async () => {
    const f = fixture();
    for (const version of [f.rulesVersion, 9999]) {
      const body = { workspace_id: f.workspaceId, content: { text: 'Hi' }, version };
      const response = await checkCopy(f.app, f.workspaceId, {}, { credential: f.otherBrandKey, body });
      expect(outcome(response)).toBe('403 workspace_forbidden');
    }
  });

  it('refuses a revoked key with 401 key_revoked and writes nothing', async () => {
    const f = fixture();
    const created = await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'to revoke' });
    await revokeBrandKey(f.deps, OPERATOR, f.workspaceId, created.id);
    await refused(
      f,
      () => checkCopy(f.app, f.workspaceId, { text: 'Hi' }, { credential: created.key }),
      '401 key_revoked',
    );
  });

  it('stores nothing of what it checks, found or not, and logs none of it', async () => {
    const f = fixture();
    const key = await newKey(f);
    const secret = 'Confidential launch: cheap espresso zq7x';
    await unchanged(f, async () => {
      const response = await checkCopy(
        f.app,
        f.workspaceId,
        { text: secret, html: `<p>${secret}</p>` },
        { credential: key },
      );
      expect(response.statusCode).toBe(200);
    });
    expect(f.logs.join('')).not.toContain('zq7x');
  });

  it("spends the credential's read budget, shared with reads: 429 rate_limited with Retry-After over it", async () => {
    const f = fixture();
    const key = await newKey(f);
    const read = await readContext(f.app, f.workspaceId, { key });
    const first = await checkCopy(f.app, f.workspaceId, { text: 'Hi' }, { credential: key });
    const second = await checkCopy(f.app, f.workspaceId, { text: 'Hi' }, { credential: key });
    expect([read, first, second].map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect([read, first, second].map(readsLeft)).toEqual([2, 1, 0]);
    expect(first.headers['ratelimit-policy']).toBe(POLICY);
    const over = await checkCopy(f.app, f.workspaceId, { text: 'Hi' }, { credential: key });
    expect(outcome(over)).toBe('429 rate_limited');
    expect(Number(over.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(over.headers['ratelimit-policy']).toBe(POLICY);
    expect(over.headers['brand-key-expires']).toMatch(/^\d{4}-/);
    // The read operation is refused too: one budget.
    expect(outcome(await readContext(f.app, f.workspaceId, { key }))).toBe('429 rate_limited');
  });

  it('counts a refused check once the credential is known, as a read is counted', async () => {
    const f = fixture();
    const key = await newKey(f);
    const refusedCheck = await checkCopy(f.app, f.otherWorkspaceId, { text: 'Hi' }, { credential: key });
    expect(outcome(refusedCheck)).toBe('403 workspace_forbidden');
    expect(readsLeft(refusedCheck)).toBe(2);
    expect(refusedCheck.headers['ratelimit-policy']).toBe(POLICY);
  });
});
