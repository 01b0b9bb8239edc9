import { expect, it } from 'vitest';
import type { BrandContext } from '../../../../core/brand-context.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend } from '#test/support/databases.js';
import {
  call,
  expectNonJsonRefused,
  outcome,
  type Problem,
  refused,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import { versionsApi, versionUrl } from '#test/support/fixtures/brand-versions.js';

describeEachBackend('Brand versions API (history, one version, diff, restore): errors', (backend) => {
  const fixture = useFixture(backend);
  const { get, put } = brandApi(fixture);
  const { list, getVersion, diff, restore } = versionsApi(fixture);

  const latest = async () => (await get()).json<BrandContext>().version;

  it('answers 404 version_not_found for a version the brand never had, on every route, and changes nothing', async () => {
    const f = fixture();
    const missing = (await latest()) + 1;

    for (const response of [await getVersion(missing), await diff(missing), await diff(2, missing)]) {
      expect(outcome(response)).toBe('404 version_not_found');
      expect(response.json<Problem>().detail).toBe(
        `The brand of ${f.workspaceId} has no version ${String(missing)}.`,
      );
    }
    await refused(f, () => restore(missing), '404 version_not_found');
    await refused(f, () => restore(missing, { note: 'Not there' }), '404 version_not_found');
  });

  it('refuses a version that is not a positive whole number within range with 400 invalid_request naming it', async () => {
    const f = fixture();
    for (const version of ['0', '-1', 'abc', '1.5', '2147483648']) {
      const response = await getVersion(version);
      expect(outcome(response), version).toBe('400 invalid_request');
      expect(response.json<Problem>().errors?.[0]?.field, version).toBe('version');
      await refused(f, () => restore(version), '400 invalid_request');
    }
    expect(outcome(await diff(2, 0))).toBe('400 invalid_request');
    expect(outcome(await diff(2, 'latest'))).toBe('400 invalid_request');
  });

  it('asks for from when diffing version 1, which has no version before it', async () => {
    const response = await diff(1);
    expect(outcome(response)).toBe('400 invalid_request');
    expect(response.json<Problem>().errors).toEqual([
      { field: 'from', message: 'is required with version 1, which has no version before it' },
    ]);
    expect(outcome(await diff(1, 2))).toBe('200');
  });

  it('refuses a cursor it did not issue and a limit out of range with 400 invalid_request', async () => {
    for (const query of ['cursor=nope', `cursor=${Buffer.from('"2"').toString('base64url')}`, 'cursor=MA']) {
      const response = await list(query);
      expect(outcome(response), query).toBe('400 invalid_request');
      expect(response.json<Problem>().errors?.[0]?.field, query).toBe('cursor');
    }
    for (const query of ['limit=0', 'limit=201', 'limit=two'])
      expect(outcome(await list(query)), query).toBe('400 invalid_request');
  });

  it('refuses a note of several lines or over 500 characters, on PUT and restore, and writes nothing', async () => {
    const f = fixture();
    const invalid = ['Line one\nline two', 'x'.repeat(501), 'Tab\there is fine?'.replace('\t', '\u0007')];
    for (const note of invalid) {
      const onPut = await refused(
        f,
        () => put({ ...DEMO_BRAND, voice: 'Noted.', note }),
        '400 invalid_request',
      );
      expect(onPut.json<Problem>().errors?.[0]?.field).toBe('note');
      const onRestore = await refused(f, () => restore(1, { note }), '400 invalid_request');
      expect(onRestore.json<Problem>().errors?.[0]?.field).toBe('note');
    }
    await refused(f, () => put({ ...DEMO_BRAND, note: 42 }), '400 invalid_request');
  });

  it('refuses a restore body with other fields, or that is not a JSON object, and writes nothing', async () => {
    const f = fixture();
    for (const body of [{ note: 'ok', version: 1 }, ['note'], 'note']) {
      const response = await refused(f, () => restore(1, body), '400 invalid_request');
      expect(response.json<Problem>().code).toBe('invalid_request');
    }
    await expectNonJsonRefused(f, f.admin.token, 'POST', `${versionUrl(f.workspaceId, 1)}/restore`);
  });

  it('answers 404 workspace_not_found on every route for a workspace that does not exist', async () => {
    const f = fixture();
    const ws = 'ws_DoesNotExist0000000000000';
    await unchanged(f, async () => {
      for (const [method, path] of [
        ['GET', `/api/v1/workspaces/${ws}/brand/versions`],
        ['GET', versionUrl(ws, 1)],
        ['GET', `${versionUrl(ws, 2)}/diff`],
        ['POST', `${versionUrl(ws, 1)}/restore`],
      ] as const) {
        expect(outcome(await call(f, f.owner.token, method, path)), path).toBe('404 workspace_not_found');
      }
    });
  });

  it('answers a PUT with a note 409 review_required where review is on, writing nothing (the note goes with the publish)', async () => {
    const f = fixture();
    await f.deps.store.workspaces.setBrandReview(f.workspaceId, 'required');
    try {
      await refused(
        f,
        () => put({ ...DEMO_BRAND, voice: 'Unreviewed.', note: 'Sneaky' }),
        '409 review_required',
      );
    } finally {
      await f.deps.store.workspaces.setBrandReview(f.workspaceId, 'off');
    }
  });
});
