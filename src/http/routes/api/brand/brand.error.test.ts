import { expect, it } from 'vitest';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import type { BrandContext } from '../../../../core/brand-context.js';
import {
  auditLog,
  call,
  type Problem,
  expectNonJsonRefused,
  outcome,
  refused,
  useFixture,
} from '#test/support/http-fixture.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { brandApi, brandUrl } from '#test/support/fixtures/brand.js';

type Document = Record<string, unknown>;

/** Editors saving at once from the same loaded brand: enough for every backend to interleave them. */
const CONCURRENT_PUTS = 12;

/** A deep copy of the demo brand, as a plain JSON object a test may break. */
function demo(): Document {
  return JSON.parse(JSON.stringify(DEMO_BRAND)) as Document;
}

/** The demo brand as `change` breaks it. */
function demoWith(change: (document: Document) => void): () => Document {
  return () => {
    const document = demo();
    change(document);
    return document;
  };
}

function section(document: Document, name: string): Document {
  return document[name] as Document;
}

function entries(document: Document, name: string): Document[] {
  return document[name] as Document[];
}

/** Invalid documents, each with exactly the fields the 400 must name. */
const INVALID: { case: string; body: () => unknown; fields: string[] }[] = [
  {
    case: 'a color that is not #RRGGBB',
    body: demoWith((document) => {
      section(document, 'colors').primary = 'red';
    }),
    fields: ['colors.primary'],
  },
  {
    case: 'a knowledge entry of an unknown kind',
    body: demoWith((document) => {
      const second = entries(document, 'knowledge')[1];
      if (second) second.kind = 'rumor';
    }),
    fields: ['knowledge[1].kind'],
  },
  {
    case: 'a social link that is not https',
    body: demoWith((document) => {
      section(document, 'social').instagram = 'http://instagram.com/acme';
    }),
    fields: ['social.instagram'],
  },
  {
    case: 'a social network name that is not lowercase',
    body: demoWith((document) => {
      section(document, 'social').Mastodon = 'https://mastodon.example/@acme';
    }),
    fields: ['social.Mastodon'],
  },
  {
    case: 'an unknown top-level field',
    body: () => ({ ...demo(), slogan: 'Coffee, plainly.' }),
    fields: ['slogan'],
  },
  {
    case: 'an unknown nested field',
    body: demoWith((document) => {
      section(document, 'colors').tint = '#000000';
    }),
    fields: ['colors.tint'],
  },
  {
    case: 'an asset URL that is not absolute https',
    body: demoWith((document) => {
      const logo = entries(document, 'assets')[0];
      if (logo) logo.url = '/brand/logo.svg';
    }),
    fields: ['assets[0].url'],
  },
  {
    case: 'a font weight out of range',
    body: demoWith((document) => {
      const heading = section(section(document, 'fonts'), 'heading');
      heading.weights = [600, 0];
    }),
    fields: ['fonts.heading.weights[1]'],
  },
  {
    case: 'an empty name',
    body: () => ({ ...demo(), name: '' }),
    fields: ['name'],
  },
  {
    case: 'two knowledge entries with one id',
    body: demoWith((document) => {
      const [first, second] = entries(document, 'knowledge');
      if (first) first.id = 'kb_same';
      if (second) second.id = 'kb_same';
    }),
    fields: ['knowledge[1].id'],
  },
  {
    case: 'several mistakes at once',
    body: demoWith((document) => {
      section(document, 'colors').primary = 'red';
      const second = entries(document, 'knowledge')[1];
      if (second) second.kind = 'rumor';
      section(document, 'social').instagram = 'ftp://instagram.com/acme';
      document.slogan = 'Coffee, plainly.';
    }),
    fields: ['colors.primary', 'knowledge[1].kind', 'social.instagram', 'slogan'],
  },
  {
    case: 'a body that is not an object',
    body: () => [demo()],
    fields: [''],
  },
];

describeEachBackend('Brand API (GET and PUT /api/v1/workspaces/{id}/brand): errors', (backend) => {
  const fixture = useFixture(backend);
  const { get, put } = brandApi(fixture);

  /** What another editor does meanwhile: loads the brand, then saves a new voice over it. */
  async function savedElsewhere(voice: string): Promise<BrandContext> {
    const response = await put({ ...DEMO_BRAND, voice }, String((await get()).headers.etag));
    expect(response.statusCode).toBe(200);
    return response.json<BrandContext>();
  }

  for (const invalid of INVALID) {
    it(`refuses ${invalid.case} with 400 invalid_request naming ${invalid.fields.map((f) => `"${f}"`).join(', ')}, and changes nothing`, async () => {
      const before = (await get()).body;
      const tables = await snapshotTables(fixture().database.config);
      fixture().clock.advance(MINUTE_MS);

      const response = await put(invalid.body());

      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      const problem = response.json<Problem>();
      expect(problem.code).toBe('invalid_request');
      expect((problem.errors ?? []).map((issue) => issue.field).sort()).toEqual([...invalid.fields].sort());
      for (const issue of problem.errors ?? []) expect(issue.message).not.toBe('');
      for (const field of invalid.fields.filter(Boolean)) expect(problem.detail).toContain(field);
      expect((await get()).body).toBe(before);
      expect(await snapshotTables(fixture().database.config)).toEqual(tables);
    });
  }

  it('explains a bad social network name with the schema advice, not a generic message', async () => {
    const response = await put({ ...DEMO_BRAND, social: { Mastodon: 'https://mastodon.example/@acme' } });
    expect(response.statusCode).toBe(400);
    expect(response.json<Problem>().errors).toEqual([
      { field: 'social.Mastodon', message: 'network names are lowercase, e.g. "instagram"' },
    ]);
  });

  it('answers 404 workspace_not_found to GET and PUT on a workspace that does not exist, and changes nothing', async () => {
    const f = fixture();
    const url = brandUrl('ws_DoesNotExist');
    await refused(f, () => call(f, f.owner.token, 'GET', url), '404 workspace_not_found');
    await refused(
      f,
      () => call(f, f.owner.token, 'PUT', url, { body: DEMO_BRAND }),
      '404 workspace_not_found',
    );
  });

  it('refuses a PUT whose If-Match is an ETag the brand has moved on from with 412 precondition_failed, and overwrites nothing', async () => {
    const f = fixture();
    const stale = String((await get()).headers.etag);
    const theirs = await savedElsewhere('Theirs: saved first.');
    fixture().clock.advance(MINUTE_MS);

    const response = await refused(
      f,
      () => put({ ...DEMO_BRAND, voice: 'Mine: saved second.' }, stale),
      '412 precondition_failed',
    );

    const problem = response.json<Problem>();
    expect(problem.detail).toContain(`version ${String(theirs.version)}`);
    expect(problem.resolution).toMatch(/read .*again/i);
    expect(problem.resolution).toContain('If-Match');
    expect((await get()).json()).toEqual(theirs);
    // The same document sent again with the current ETag goes through.
    const current = String((await get()).headers.etag);
    const retried = await put({ ...DEMO_BRAND, voice: 'Mine: saved second.' }, current);
    expect(retried.json<BrandContext>()).toMatchObject({
      voice: 'Mine: saved second.',
      version: theirs.version + 1,
    });
  });

  it('refuses an If-Match without quotes with 412 precondition_failed that says how to write it', async () => {
    const f = fixture();
    const { version } = (await get()).json<BrandContext>();

    const response = await refused(f, () => put(DEMO_BRAND, String(version)), '412 precondition_failed');

    expect(response.json<Problem>().resolution).toContain('quotes included');
  });

  it('lets exactly one of several concurrent PUTs with the same If-Match through; the others answer 412 and change nothing', async () => {
    const before = await get();
    const etag = String(before.headers.etag);
    const { version } = before.json<BrandContext>();
    const audited = (await auditLog(fixture())).length;

    const responses = await Promise.all(
      Array.from({ length: CONCURRENT_PUTS }, (_, i) =>
        put({ ...DEMO_BRAND, voice: `Editor ${String(i)}` }, etag),
      ),
    );

    const outcomes = responses.map(outcome);
    expect(
      outcomes.filter((result) => result === '200'),
      outcomes.join(', '),
    ).toHaveLength(1);
    expect(outcomes.filter((result) => result === '412 precondition_failed')).toHaveLength(
      CONCURRENT_PUTS - 1,
    );
    const winner = responses.find((response) => response.statusCode === 200)?.json<BrandContext>();
    expect(winner?.version).toBe(version + 1);
    expect((await get()).json()).toEqual(winner);
    const audit = await auditLog(fixture());
    expect(audit.slice(0, audit.length - audited).map((event) => event.action)).toEqual(['brand.updated']);
  });

  it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON, and changes nothing', async () => {
    const f = fixture();
    await expectNonJsonRefused(f, f.admin.token, 'PUT', brandUrl(f.workspaceId));
  });
});
