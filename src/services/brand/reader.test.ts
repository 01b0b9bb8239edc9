import { describe, expect, it } from 'vitest';
import { type BrandContext, parseBrandDocument, settleBrandDocument } from '../../core/brand-context.js';
import { brandView, WHOLE_BRAND_JSON } from '../../core/brand-views.js';
import { AppError } from '../../core/errors.js';
import { ChangeHub } from '../../store/change-feed.js';
import type { BrandRepository, BrandVersionRecord } from '../../store/store.js';
import { DEMO_BRAND } from '../demo/demo-brand.js';
import { BrandReader } from './reader.js';

const WORKSPACE = 'ws_reader';

/** The demo brand at `version`, its voice naming the version, so every version reads differently. */
function brandAt(version: number): BrandContext {
  const now = '2026-11-29T00:00:00.000Z';
  let id = 0;
  const content = settleBrandDocument(
    parseBrandDocument({ ...DEMO_BRAND, voice: `Voice ${String(version)}` }),
    undefined,
    now,
    (prefix) => `${prefix}_${String(++id)}`,
  );
  return { workspace_id: WORKSPACE, ...content, name: 'Acme Coffee', updated_at: now, version };
}

/** A brand repository that has versions 1..`latest`, counting the lookups of each kind. */
function fakeBrands(latest: { version: number }) {
  const calls = { get: 0, getVersion: 0 };
  const record = (version: number): BrandVersionRecord => ({
    workspaceId: WORKSPACE,
    version,
    createdAt: '2026-11-29T00:00:00.000Z',
    actorType: 'system',
    actorId: null,
    actorEmail: null,
    note: null,
    sectionsChanged: [],
  });
  const brand: Pick<BrandRepository, 'get' | 'getVersion'> = {
    get: (workspaceId) => {
      calls.get++;
      return Promise.resolve(workspaceId === WORKSPACE ? brandAt(latest.version) : undefined);
    },
    getVersion: async (workspaceId, version) => {
      calls.getVersion++;
      // Slow enough that reads arriving together all find the lookup under way.
      await new Promise((resolve) => setTimeout(resolve, 5));
      return workspaceId === WORKSPACE && version >= 1 && version <= latest.version
        ? { record: record(version), brand: brandAt(version) }
        : undefined;
    },
  };
  return { brand: brand as BrandRepository, calls };
}

function readerOf(latest: { version: number }) {
  const { brand, calls } = fakeBrands(latest);
  const changes = new ChangeHub(() => () => undefined);
  return { reader: new BrandReader({ brand, changes }), calls, changes };
}

const text = (served: { body: Buffer }) => served.body.toString('utf8');

describe('BrandReader: pinned versions', () => {
  it('serves a pinned version with its own bytes, ETag and Brand-Version, apart from the latest', async () => {
    const { reader } = readerOf({ version: 3 });
    const latest = await reader.readWorkspace(WORKSPACE);
    const pinned = await reader.readVersion(WORKSPACE, 2);
    expect(latest.version).toBe('3');
    expect(pinned.version).toBe('2');
    expect(JSON.parse(text(pinned))).toMatchObject({ version: 2, voice: 'Voice 2' });
    expect(pinned.etag).not.toBe(latest.etag);
    const same = await reader.readVersion(WORKSPACE, 3);
    expect(same.etag).toBe(latest.etag);
    expect(same.body.equals(latest.body)).toBe(true);
  });

  it('loads a version once for reads that arrive together, and serves it from memory after', async () => {
    const { reader, calls } = readerOf({ version: 3 });
    const markdown = brandView({ format: 'markdown' });
    const [, rendered] = await Promise.all([
      reader.readVersion(WORKSPACE, 2),
      reader.readVersion(WORKSPACE, 2, markdown),
      reader.readVersion(WORKSPACE, 2),
    ]);
    expect(calls.getVersion).toBe(1);
    expect(text(rendered)).toContain('Voice 2');
    const hit = reader.readVersion(WORKSPACE, 2, markdown);
    expect(hit).not.toBeInstanceOf(Promise);
    expect(calls.getVersion).toBe(1);
  });

  it('keeps a pinned version through changes of the brand, which evict only the latest', async () => {
    const latest = { version: 3 };
    const { reader, calls, changes } = readerOf(latest);
    const before = await reader.readVersion(WORKSPACE, 2, WHOLE_BRAND_JSON);
    await reader.readWorkspace(WORKSPACE);
    latest.version = 4;
    changes.emit({ workspaceId: WORKSPACE });
    changes.emit({ workspaceId: null });
    const after = reader.readVersion(WORKSPACE, 2, WHOLE_BRAND_JSON);
    expect(after).toBe(before);
    expect(calls.getVersion).toBe(1);
    expect((await reader.readWorkspace(WORKSPACE)).version).toBe('4');
  });

  it('refuses a version the brand does not have with version_not_found, and caches no refusal', async () => {
    const latest = { version: 3 };
    const { reader, calls } = readerOf(latest);
    for (const version of [4, 2 ** 31]) {
      await expect(reader.readVersion(WORKSPACE, version)).rejects.toSatisfy(
        (error) => error instanceof AppError && error.code === 'version_not_found',
      );
    }
    // 2^31 is past what the store holds: refused without asking it.
    expect(calls.getVersion).toBe(1);
    latest.version = 4;
    expect(JSON.parse(text(await reader.readVersion(WORKSPACE, 4)))).toMatchObject({ version: 4 });
  });
});
