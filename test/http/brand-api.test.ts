import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { BrandContext, BrandDocumentInput } from '../../src/core/brand-context.js';
import { OPERATOR } from '../../src/services/audit.js';
import { createBrandKey } from '../../src/services/keys.js';
import { DEMO_BRAND } from '../../src/services/demo-brand.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '../support/databases.js';
import { addUser, bearer } from '../support/users.js';

type Document = Record<string, unknown>;

interface Problem {
  status: number;
  code: string;
  detail: string;
  errors?: { field: string; message: string }[];
}

const MINUTE_MS = 60_000;

/** A deep copy of the demo brand, as a plain JSON object a test may break. */
function demo(): Document {
  return JSON.parse(JSON.stringify(DEMO_BRAND)) as Document;
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
    body: () => {
      const document = demo();
      section(document, 'colors').primary = 'red';
      return document;
    },
    fields: ['colors.primary'],
  },
  {
    case: 'a knowledge entry of an unknown kind',
    body: () => {
      const document = demo();
      const second = entries(document, 'knowledge')[1];
      if (second) second.kind = 'rumor';
      return document;
    },
    fields: ['knowledge[1].kind'],
  },
  {
    case: 'a social link that is not https',
    body: () => {
      const document = demo();
      section(document, 'social').instagram = 'http://instagram.com/acme';
      return document;
    },
    fields: ['social.instagram'],
  },
  {
    case: 'a social network name that is not lowercase',
    body: () => {
      const document = demo();
      section(document, 'social').Mastodon = 'https://mastodon.example/@acme';
      return document;
    },
    fields: ['social.Mastodon'],
  },
  {
    case: 'an unknown top-level field',
    body: () => ({ ...demo(), slogan: 'Coffee, plainly.' }),
    fields: ['slogan'],
  },
  {
    case: 'an unknown nested field',
    body: () => {
      const document = demo();
      section(document, 'colors').tint = '#000000';
      return document;
    },
    fields: ['colors.tint'],
  },
  {
    case: 'an asset URL that is not absolute https',
    body: () => {
      const document = demo();
      const logo = entries(document, 'assets')[0];
      if (logo) logo.url = '/brand/logo.svg';
      return document;
    },
    fields: ['assets[0].url'],
  },
  {
    case: 'a font weight out of range',
    body: () => {
      const document = demo();
      const heading = section(section(document, 'fonts'), 'heading');
      heading.weights = [600, 0];
      return document;
    },
    fields: ['fonts.heading.weights[1]'],
  },
  {
    case: 'an empty name',
    body: () => ({ ...demo(), name: '' }),
    fields: ['name'],
  },
  {
    case: 'two knowledge entries with one id',
    body: () => {
      const document = demo();
      const [first, second] = entries(document, 'knowledge');
      if (first) first.id = 'kb_same';
      if (second) second.id = 'kb_same';
      return document;
    },
    fields: ['knowledge[1].id'],
  },
  {
    case: 'several mistakes at once',
    body: () => {
      const document = demo();
      section(document, 'colors').primary = 'red';
      const second = entries(document, 'knowledge')[1];
      if (second) second.kind = 'rumor';
      section(document, 'social').instagram = 'ftp://instagram.com/acme';
      return { ...document, slogan: 'Coffee, plainly.' };
    },
    fields: ['colors.primary', 'knowledge[1].kind', 'social.instagram', 'slogan'],
  },
  {
    case: 'a body that is not an object',
    body: () => [demo()],
    fields: [''],
  },
];

describeEachBackend('Brand API: GET and PUT /api/v1/workspaces/{id}/brand', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let workspaceId = '';
  let token = '';
  let key = '';

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database);
    const workspace = await createWorkspace(testApp.deps, OPERATOR, { name: 'Acme Coffee' });
    workspaceId = workspace.id;
    ({ token } = await addUser(testApp, { workspaceId, role: 'admin' }));
    ({ key } = await createBrandKey(testApp.deps, OPERATOR, { workspaceId, name: 'reader' }));
    const response = await put(DEMO_BRAND);
    if (response.statusCode !== 200) throw new Error(`setup PUT failed: ${response.body}`);
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  const url = () => `/api/v1/workspaces/${workspaceId}/brand`;
  const get = () => testApp.app.inject({ method: 'GET', url: url(), headers: bearer(token) });
  const put = (body: unknown): Promise<LightMyRequestResponse> =>
    testApp.app.inject({
      method: 'PUT',
      url: url(),
      headers: { ...bearer(token), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  const read = () =>
    testApp.app.inject({
      method: 'POST',
      url: '/functions/v1/brand-agent',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ action: 'context', workspace_id: workspaceId }),
    });

  for (const invalid of INVALID) {
    it(`refuses ${invalid.case} with 400 invalid_request naming ${invalid.fields.map((f) => `"${f}"`).join(', ')}, and changes nothing`, async () => {
      const before = (await get()).body;
      const tables = await snapshotTables(database.config);
      testApp.clock.advance(MINUTE_MS);

      const response = await put(invalid.body());

      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      const problem = response.json<Problem>();
      expect(problem.code).toBe('invalid_request');
      expect((problem.errors ?? []).map((issue) => issue.field).sort()).toEqual([...invalid.fields].sort());
      for (const issue of problem.errors ?? []) expect(issue.message).not.toBe('');
      for (const field of invalid.fields.filter(Boolean)) expect(problem.detail).toContain(field);
      expect((await get()).body).toBe(before);
      expect(await snapshotTables(database.config)).toEqual(tables);
    });
  }

  it('bumps the version and updated_at on a valid change, and the read operation sees it at once', async () => {
    const before = (await get()).json<BrandContext>();
    testApp.clock.advance(MINUTE_MS);
    const now = new Date(testApp.clock.now()).toISOString();

    const response = await put({ ...DEMO_BRAND, description: 'Roasted in Portland since 2012.' });

    expect(response.statusCode).toBe(200);
    const after = response.json<BrandContext>();
    expect(after.version).toBe(before.version + 1);
    expect(after.updated_at).toBe(now);
    expect(after.description).toBe('Roasted in Portland since 2012.');
    expect((await get()).json()).toEqual(after);
    expect((await read()).json()).toEqual(after);
  });

  it('keeps the version, updated_at and every table when the same brand is put again', async () => {
    const current = (await get()).json<BrandContext>();
    const tables = await snapshotTables(database.config);
    testApp.clock.advance(MINUTE_MS);

    // The brand as GET returns it (entry ids included; server-set fields are ignored on input).
    const response = await put(current);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(current);
    expect(await snapshotTables(database.config)).toEqual(tables);

    const { workspace_id: _id, updated_at: _at, version: _version, ...document } = current;
    const again = await put(document);
    expect(again.json<BrandContext>()).toMatchObject({
      version: current.version,
      updated_at: current.updated_at,
    });
    expect(await snapshotTables(database.config)).toEqual(tables);
  });

  it('keeps the version when a document without entry ids is put twice (entries are matched by content)', async () => {
    await put(DEMO_BRAND);
    const first = (await get()).json<BrandContext>();
    testApp.clock.advance(MINUTE_MS);
    const again = (await put(DEMO_BRAND)).json<BrandContext>();
    expect(again).toEqual(first);
  });

  it('explains a bad social network name with the schema advice, not a generic message', async () => {
    const response = await put({ ...DEMO_BRAND, social: { Mastodon: 'https://mastodon.example/@acme' } });
    expect(response.statusCode).toBe(400);
    expect(response.json<Problem>().errors).toEqual([
      { field: 'social.Mastodon', message: 'network names are lowercase, e.g. "instagram"' },
    ]);
  });

  it('normalizes colors to upper case, so a lower-case copy of the same brand changes nothing', async () => {
    const current = (await get()).json<BrandContext>();
    const lower: BrandDocumentInput = {
      ...current,
      colors: {
        ...current.colors,
        primary: current.colors.primary?.toLowerCase() ?? null,
        palette: current.colors.palette.map((swatch) => ({ ...swatch, hex: swatch.hex.toLowerCase() })),
      },
    };
    expect(lower.colors?.primary).toMatch(/^#[0-9a-f]{6}$/);
    const response = await put(lower);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(current);
  });

  it('answers GET with exactly the bytes the read operation returns', async () => {
    const [fromGet, fromRead] = [await get(), await read()];
    expect(fromGet.statusCode).toBe(200);
    expect(fromRead.statusCode).toBe(200);
    expect(fromGet.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(fromGet.body).toBe(fromRead.body);
    const brand = fromGet.json<BrandContext>();
    expect(brand.workspace_id).toBe(workspaceId);
    expect(brand.knowledge).toHaveLength(DEMO_BRAND.knowledge?.length ?? -1);
  });

  it('answers GET and PUT with the stored brand also when every color, font and entry is set', async () => {
    // Regression: response serialization once failed (500) on a brand with colors or knowledge entries.
    const response = await put({ ...DEMO_BRAND, voice: 'Plain and warm.' });
    expect(response.statusCode).toBe(200);
    const brand = response.json<BrandContext>();
    expect(brand.colors.primary).toBe('#6B3E26');
    expect(brand.knowledge[0]?.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect((await get()).json()).toEqual(brand);
  });
});
