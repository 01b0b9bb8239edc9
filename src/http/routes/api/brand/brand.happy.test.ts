import { expect, it } from 'vitest';
import type { BrandContext, BrandDocumentInput } from '../../../../core/brand-context.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { isoNow, useFixture } from '#test/support/http-fixture.js';
import { MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { brandApi } from '#test/support/fixtures/brand.js';

describeEachBackend('Brand API (GET and PUT /api/v1/workspaces/{id}/brand): the happy paths', (backend) => {
  const fixture = useFixture(backend);
  const { get, put, read } = brandApi(fixture);

  it('bumps the version and updated_at on a valid change, and the read operation sees it at once', async () => {
    const before = (await get()).json<BrandContext>();
    fixture().clock.advance(MINUTE_MS);
    const now = isoNow(fixture());

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
    const tables = await snapshotTables(fixture().database.config);
    fixture().clock.advance(MINUTE_MS);

    // The brand as GET returns it (entry ids included; server-set fields are ignored on input).
    const response = await put(current);

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual(current);
    expect(await snapshotTables(fixture().database.config)).toEqual(tables);

    const { workspace_id: _id, updated_at: _at, version: _version, ...document } = current;
    const again = await put(document);
    expect(again.json<BrandContext>()).toMatchObject({
      version: current.version,
      updated_at: current.updated_at,
    });
    expect(await snapshotTables(fixture().database.config)).toEqual(tables);
  });

  it('keeps the version when a document without entry ids is put twice (entries are matched by content)', async () => {
    await put(DEMO_BRAND);
    const first = (await get()).json<BrandContext>();
    fixture().clock.advance(MINUTE_MS);
    const again = (await put(DEMO_BRAND)).json<BrandContext>();
    expect(again).toEqual(first);
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
    expect(brand.workspace_id).toBe(fixture().workspaceId);
    expect(brand.knowledge).toHaveLength(DEMO_BRAND.knowledge?.length ?? -1);
  });

  it('answers GET with a strong ETag, and a PUT with If-Match of it with the new ETag that the next GET answers', async () => {
    const loaded = await get();
    const etag = loaded.headers.etag;
    expect(etag).toMatch(/^"[^"]+"$/);
    expect((await get()).headers.etag, 'the same version, the same ETag').toBe(etag);

    const response = await put({ ...DEMO_BRAND, voice: 'Short sentences.' }, String(etag));

    expect(response.statusCode).toBe(200);
    const saved = response.json<BrandContext>();
    expect(saved.version).toBe(loaded.json<BrandContext>().version + 1);
    expect(saved.voice).toBe('Short sentences.');
    expect(response.headers.etag).toMatch(/^"[^"]+"$/);
    expect(response.headers.etag).not.toBe(etag);
    expect((await get()).headers.etag).toBe(response.headers.etag);
  });

  it('applies a PUT with If-Match: * or with no If-Match to whatever version is current, as before', async () => {
    const before = (await get()).json<BrandContext>();

    const anyVersion = await put({ ...DEMO_BRAND, voice: 'First.' }, '*');
    const unconditional = await put({ ...DEMO_BRAND, voice: 'Second.' });

    expect([anyVersion.statusCode, unconditional.statusCode]).toEqual([200, 200]);
    expect(unconditional.json<BrandContext>()).toMatchObject({
      voice: 'Second.',
      version: before.version + 2,
    });
    expect(unconditional.headers.etag).toBe((await get()).headers.etag);
  });

  it('accepts an If-Match that lists the current ETag among others, or sends it weakened by a proxy', async () => {
    const etag = String((await get()).headers.etag);
    const listed = await put({ ...DEMO_BRAND, voice: 'Listed.' }, `"stale", ${etag}`);
    expect(listed.statusCode).toBe(200);
    const weakened = await put({ ...DEMO_BRAND, voice: 'Weakened.' }, `W/${String(listed.headers.etag)}`);
    expect(weakened.statusCode).toBe(200);
    expect((await get()).json<BrandContext>().voice).toBe('Weakened.');
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
