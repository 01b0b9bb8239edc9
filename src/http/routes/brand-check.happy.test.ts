import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { type BrandCheckResult, checkCopy, publishCheckRules } from '#test/support/fixtures/brand-check.js';
import { unchanged, useFixture } from '#test/support/http-fixture.js';

const BROKEN = 'Our cheap joe is great!!';

describeEachBackend('POST /functions/v1/brand-check: happy path', (backend) => {
  const fixture = useFixture(backend, {
    extend: async (f) => ({ rulesVersion: await publishCheckRules(f) }),
  });

  it('answers 200 with each finding: its rule, field, excerpt and the offsets of the excerpt', async () => {
    const f = fixture();
    const response = await checkCopy(f.app, f.workspaceId, { text: BROKEN }, { credential: f.brandKey });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.headers['brand-version']).toBe(String(f.rulesVersion));
    expect(response.headers['brand-key-expires']).toMatch(/^\d{4}-\d\d-\d\dT/);
    const result = response.json<BrandCheckResult>();
    expect(result.passed).toBe(false);
    expect(result.version).toBe(f.rulesVersion);
    expect(result.findings).toEqual(
      expect.arrayContaining([
        {
          rule_id: 'rl_banned',
          kind: 'banned_term',
          severity: 'error',
          message: 'We are never cheap.',
          excerpt: 'cheap',
          field: 'text',
          start: 4,
          end: 9,
        },
        {
          rule_id: 'rl_preferred',
          kind: 'preferred_term',
          severity: 'warning',
          message: 'Say "coffee" instead of "joe".',
          excerpt: 'joe',
          field: 'text',
          start: 10,
          end: 13,
        },
        {
          rule_id: 'rl_bang',
          kind: 'max_exclamations',
          severity: 'error',
          message: 'At most 1 exclamation mark.',
          excerpt: '!',
          field: 'text',
          start: 23,
          end: 24,
        },
      ]),
    );
    expect(result.findings).toHaveLength(3);
    for (const finding of result.findings)
      expect(BROKEN.slice(finding.start ?? 0, finding.end ?? 0)).toBe(finding.excerpt);
  });

  it('passes copy that keeps every rule, and copy whose only findings are warnings', async () => {
    const f = fixture();
    const kept = await checkCopy(
      f.app,
      f.workspaceId,
      { subject: 'New roasts are in', text: 'Fresh coffee, roasted this week.', html: '<p>Hello!</p>' },
      { credential: f.brandKey },
    );
    expect(kept.statusCode).toBe(200);
    expect(kept.json()).toEqual({ passed: true, version: f.rulesVersion, findings: [] });
    const warned = await checkCopy(
      f.app,
      f.workspaceId,
      { text: 'A cup of joe.' },
      { credential: f.brandKey },
    );
    const result = warned.json<BrandCheckResult>();
    expect(result.passed).toBe(true);
    expect(result.findings.map((finding) => [finding.rule_id, finding.severity])).toEqual([
      ['rl_preferred', 'warning'],
    ]);
  });

  it("points the offsets of a finding in the subject and the HTML at that field's own string", async () => {
    const f = fixture();
    const html = '<p style="color:#6B3E26">Never <b>cheap</b>.</p>';
    const response = await checkCopy(
      f.app,
      f.workspaceId,
      { subject: 'Cheap beans', html },
      { credential: f.brandKey },
    );
    const { findings } = response.json<BrandCheckResult>();
    const subject = findings.find((finding) => finding.field === 'subject');
    expect(subject).toMatchObject({ rule_id: 'rl_banned', excerpt: 'Cheap', start: 0, end: 5 });
    const inHtml = findings.find((finding) => finding.field === 'html');
    expect(inHtml).toMatchObject({ rule_id: 'rl_banned', excerpt: 'cheap' });
    expect(html.slice(inHtml?.start ?? 0, inHtml?.end ?? 0)).toBe('cheap');
  });

  it("takes a member's user token as the read operation does", async () => {
    const f = fixture();
    const response = await checkCopy(
      f.app,
      f.workspaceId,
      { text: 'So cheap' },
      { credential: f.member.token },
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['brand-key-expires']).toBeUndefined();
    expect(response.json<BrandCheckResult>().findings.map((finding) => finding.rule_id)).toEqual([
      'rl_banned',
    ]);
  });

  it('checks an empty content, or one with empty fields, and finds nothing', async () => {
    const f = fixture();
    for (const content of [{}, { subject: '', text: '', html: '' }] as Record<string, string>[]) {
      const response = await checkCopy(f.app, f.workspaceId, content, { credential: f.brandKey });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ passed: true, version: f.rulesVersion, findings: [] });
    }
  });

  it('stores nothing: every table is as it was after many checks', async () => {
    const f = fixture();
    await unchanged(f, async () => {
      for (let i = 0; i < 5; i++) {
        const response = await checkCopy(f.app, f.workspaceId, { text: BROKEN }, { credential: f.brandKey });
        expect(response.statusCode).toBe(200);
      }
    });
  });

  // Last: it publishes a new version of the brand.
  it('checks against the version `version` pins, and the latest without it', async () => {
    const f = fixture();
    const latest = await publishCheckRules(f, []);
    expect(latest).toBeGreaterThan(f.rulesVersion);
    const now = await checkCopy(f.app, f.workspaceId, { text: BROKEN }, { credential: f.brandKey });
    expect(now.json()).toEqual({ passed: true, version: latest, findings: [] });
    expect(now.headers['brand-version']).toBe(String(latest));
    const pinned = await checkCopy(
      f.app,
      f.workspaceId,
      {},
      {
        credential: f.brandKey,
        body: { workspace_id: f.workspaceId, content: { text: BROKEN }, version: f.rulesVersion },
      },
    );
    expect(pinned.statusCode).toBe(200);
    expect(pinned.headers['brand-version']).toBe(String(f.rulesVersion));
    const result = pinned.json<BrandCheckResult>();
    expect(result.version).toBe(f.rulesVersion);
    expect(result.passed).toBe(false);
    expect(result.findings.map((finding) => finding.rule_id).sort()).toEqual([
      'rl_bang',
      'rl_banned',
      'rl_preferred',
    ]);
  });
});
