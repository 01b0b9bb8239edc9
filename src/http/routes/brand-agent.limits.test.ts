import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { OPERATOR } from '../../services/audit/audit.js';
import { createBrandKey } from '../../services/keys/keys.js';
import { describeEachBackend, sqliteBackend } from '#test/support/databases.js';
import { PATH, readContext } from '#test/support/fixtures/brand-agent.js';
import { type Fixture, problemOf, useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';

const MINUTE = { points: 3, windowMs: 60_000 };
const POLICY = '"reads";q=3;w=60';

/** A key of its own, so each test starts with a whole budget. */
async function newKey(f: Fixture): Promise<string> {
  return (await createBrandKey(f.deps, OPERATOR, { workspaceId: f.workspaceId, name: 'limited' })).key;
}

/** The `r` (reads left) of a RateLimit header. */
function readsLeft(response: LightMyRequestResponse): number {
  const match = /^"reads";r=(\d+);t=(\d+)$/.exec(String(response.headers.ratelimit));
  if (!match) throw new Error(`no RateLimit header: ${String(response.headers.ratelimit)}`);
  return Number(match[1]);
}

describeEachBackend('POST /functions/v1/brand-agent: read limits per credential', (backend) => {
  const fixture = useFixture(backend, { app: { readLimits: { limit: MINUTE } } });

  it('counts RateLimit down on each read, then answers 429 rate_limited with Retry-After and the budget', async () => {
    const f = fixture();
    const key = await newKey(f);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await readContext(f.app, f.workspaceId, { key }));
    expect(answers.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect(answers.map((response) => response.headers['ratelimit-policy'])).toEqual([POLICY, POLICY, POLICY]);
    expect(answers.map(readsLeft)).toEqual([2, 1, 0]);
    const refused = await readContext(f.app, f.workspaceId, { key });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = problemOf(refused);
    expect(problem.code).toBe('rate_limited');
    expect(problem.title).toBe('Too many requests');
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(problem.detail).toBe(`Too many reads with this credential; try again in ${retryAfter} s.`);
    expect(problem.resolution).toMatch(/Retry-After/);
    expect(refused.headers['ratelimit-policy']).toBe(POLICY);
    expect(refused.headers.ratelimit).toBe(`"reads";r=0;t=${retryAfter}`);
    expect(refused.headers['brand-key-expires']).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it('counts a 304 as a read', async () => {
    const f = fixture();
    const key = await newKey(f);
    const first = await readContext(f.app, f.workspaceId, { key });
    const etag = String(first.headers.etag);
    const notModified = await readContext(f.app, f.workspaceId, { key, headers: { 'if-none-match': etag } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.headers['ratelimit-policy']).toBe(POLICY);
    expect([first, notModified].map(readsLeft)).toEqual([2, 1]);
  });

  it("leaves another key's budget alone when one key runs out", async () => {
    const f = fixture();
    const [spent, other] = [await newKey(f), await newKey(f)];
    for (let i = 0; i < 4; i++) await readContext(f.app, f.workspaceId, { key: spent });
    expect((await readContext(f.app, f.workspaceId, { key: spent })).statusCode).toBe(429);
    const response = await readContext(f.app, f.workspaceId, { key: other });
    expect(response.statusCode).toBe(200);
    expect(readsLeft(response)).toBe(2);
  });

  it('gives each sign-in session its own budget, apart from the workspace keys', async () => {
    const f = fixture();
    const key = await newKey(f);
    for (let i = 0; i < 3; i++) await readContext(f.app, f.workspaceId, { key });
    const member = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
    const read = () => readContext(f.app, f.workspaceId, { authorization: `Bearer ${member.token}` });
    const answers = [await read(), await read(), await read(), await read()];
    expect(answers.map((response) => response.statusCode)).toEqual([200, 200, 200, 429]);
    expect(answers.slice(0, 3).map(readsLeft)).toEqual([2, 1, 0]);
  });

  it('takes nothing from any budget for a missing, malformed or unknown key, and sends no budget', async () => {
    const f = fixture();
    const key = await newKey(f);
    const unknown = `brk_${'A'.repeat(36)}`;
    const refusals = [
      await readContext(f.app, f.workspaceId, {}),
      await readContext(f.app, f.workspaceId, { authorization: 'Bearer nonsense' }),
      await readContext(f.app, f.workspaceId, { key: unknown }),
      await readContext(f.app, f.workspaceId, { authorization: `Bearer ${key}x` }),
    ];
    expect(refusals.map((response) => response.statusCode)).toEqual([401, 401, 401, 401]);
    for (const response of refusals) {
      expect(response.headers['ratelimit-policy']).toBeUndefined();
      expect(response.headers.ratelimit).toBeUndefined();
    }
    expect(readsLeft(await readContext(f.app, f.workspaceId, { key }))).toBe(2);
  });

  it('sends the budget on refusals after the credential is known, and counts them', async () => {
    const f = fixture();
    const key = await newKey(f);
    const wrongType = await readContext(f.app, f.workspaceId, {
      key,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'context',
    });
    expect(problemOf(wrongType).code).toBe('unsupported_media_type');
    const forbidden = await readContext(f.app, f.otherWorkspaceId, { key });
    expect(problemOf(forbidden).code).toBe('workspace_forbidden');
    expect([wrongType, forbidden].map((response) => response.headers['ratelimit-policy'])).toEqual([
      POLICY,
      POLICY,
    ]);
    expect([wrongType, forbidden].map(readsLeft)).toEqual([2, 1]);
  });

  it('documents the budget headers and the 429 in the API reference', async () => {
    const f = fixture();
    const document = (await f.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, { post: { responses: Record<string, { headers?: object }> } }>;
    }>();
    const { responses } = document.paths[PATH]?.post ?? { responses: {} };
    expect(Object.keys(responses['200']?.headers ?? {})).toEqual(
      expect.arrayContaining(['RateLimit-Policy', 'RateLimit']),
    );
    expect(Object.keys(responses['304']?.headers ?? {})).toEqual(
      expect.arrayContaining(['RateLimit-Policy', 'RateLimit']),
    );
    expect(JSON.stringify(responses['429'])).toContain('rate_limited');
  });
});

describe('POST /functions/v1/brand-agent: a read budget of one second', () => {
  const fixture = useFixture(sqliteBackend, {
    app: { readLimits: { limit: { points: 2, windowMs: 1000 } } },
  });

  it('reads again once the window has passed', async () => {
    const f = fixture();
    const key = await newKey(f);
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await readContext(f.app, f.workspaceId, { key }));
    expect(answers.map((response) => response.statusCode)).toEqual([200, 200, 429]);
    expect(answers[2]?.headers['retry-after']).toBe('1');
    await sleep(1100);
    const again = await readContext(f.app, f.workspaceId, { key });
    expect(again.statusCode).toBe(200);
    expect(again.headers['ratelimit-policy']).toBe('"reads";q=2;w=1');
    expect(readsLeft(again)).toBe(1);
  });
});

describe('POST /functions/v1/brand-agent without a read budget', () => {
  const fixture = useFixture(sqliteBackend);

  it('sends no RateLimit headers and never answers 429', async () => {
    const f = fixture();
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await readContext(f.app, f.workspaceId, { key: f.brandKey }));
    expect(answers.map((response) => response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0]?.headers['ratelimit-policy']).toBeUndefined();
    expect(answers[0]?.headers.ratelimit).toBeUndefined();
  });
});
