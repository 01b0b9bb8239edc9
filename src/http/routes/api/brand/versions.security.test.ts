import type { HTTPMethods } from 'fastify';
import { expect, it } from 'vitest';
import type { BrandContext } from '../../../../core/brand-context.js';
import { DEMO_BRAND } from '../../../../services/demo/demo-brand.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, type Fixture, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import {
  type BrandVersionPage,
  versionsApi,
  versionsUrl,
  versionUrl,
} from '#test/support/fixtures/brand-versions.js';

/** The four routes of the history, on the workspace `workspaceId`, at `version`. */
function routes(
  workspaceId: string,
  version: number,
): { method: HTTPMethods; url: string; reads: boolean }[] {
  return [
    { method: 'GET', url: versionsUrl(workspaceId), reads: true },
    { method: 'GET', url: versionUrl(workspaceId, version), reads: true },
    { method: 'GET', url: `${versionUrl(workspaceId, version)}/diff?from=1`, reads: true },
    { method: 'POST', url: `${versionUrl(workspaceId, version)}/restore`, reads: false },
  ];
}

describeEachBackend('Brand versions API (history, one version, diff, restore): security', (backend) => {
  const fixture = useFixture(backend);
  const { get, put } = brandApi(fixture);
  const { list } = versionsApi(fixture);

  /** A version of the suite's brand with a voice nobody outside should read, and a later one. */
  async function secretVersion(f: Fixture): Promise<BrandContext> {
    const secret = (
      await put({ ...DEMO_BRAND, voice: `Secret voice ${String(Date.now())}.` })
    ).json<BrandContext>();
    await put({ ...DEMO_BRAND, voice: 'Public voice.' });
    expect(secret.workspace_id).toBe(f.workspaceId);
    return secret;
  }

  it('lets a member read the history, a version and a diff, but not restore: 403 insufficient_role, nothing changed', async () => {
    const f = fixture();
    const secret = await secretVersion(f);
    for (const route of routes(f.workspaceId, secret.version)) {
      if (route.reads)
        expect(outcome(await call(f, f.member.token, route.method, route.url)), route.url).toBe('200');
      else
        await refused(
          f,
          () => call(f, f.member.token, route.method, route.url, { body: { note: 'Member restore' } }),
          '403 insufficient_role',
        );
    }
    expect((await call(f, f.member.token, 'GET', versionUrl(f.workspaceId, secret.version))).json()).toEqual(
      secret,
    );
  });

  it("answers 403 workspace_forbidden to another workspace's owner on every route, leaking no version and changing nothing", async () => {
    const f = fixture();
    const secret = await secretVersion(f);
    for (const route of routes(f.workspaceId, secret.version)) {
      const response = await refused(
        f,
        () => call(f, f.otherOwner.token, route.method, route.url, route.reads ? {} : { body: {} }),
        '403 workspace_forbidden',
      );
      expect(response.body).not.toContain(secret.voice);
    }
    // Nor does a version that does not exist tell them anything more: the workspace check comes first.
    await refused(
      f,
      () => call(f, f.otherOwner.token, 'GET', versionUrl(f.workspaceId, 999_999)),
      '403 workspace_forbidden',
    );
  });

  it("keeps each workspace's history its own: an owner reads only their workspace's versions through it", async () => {
    const f = fixture();
    const secret = await secretVersion(f);
    const own = await call(f, f.otherOwner.token, 'GET', versionsUrl(f.otherWorkspaceId));
    expect(own.statusCode).toBe(200);
    const items = own.json<BrandVersionPage>().items;
    expect(items.map((item) => item.version)).toEqual([1]);
    // The same version number in their own workspace is not this workspace's version.
    const sameNumber = await call(
      f,
      f.otherOwner.token,
      'GET',
      versionUrl(f.otherWorkspaceId, secret.version),
    );
    expect(outcome(sameNumber)).toBe('404 version_not_found');
    expect(sameNumber.body).not.toContain(secret.voice);
    // Restoring in their own workspace never reaches this one's content.
    await refused(
      f,
      () => call(f, f.otherOwner.token, 'POST', `${versionUrl(f.otherWorkspaceId, secret.version)}/restore`),
      '404 version_not_found',
    );
  });

  it('refuses keys and anonymous callers on every route (history is for users), and changes nothing', async () => {
    const f = fixture();
    const version = (await get()).json<BrandContext>().version;
    const cases: [string | undefined, string][] = [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [undefined, '401 missing_token'],
    ];
    for (const [credential, expected] of cases) {
      for (const route of routes(f.workspaceId, version)) {
        await refused(
          f,
          () => call(f, credential, route.method, route.url, route.reads ? {} : { body: {} }),
          expected,
        );
      }
    }
  });

  it('records who restored: the user of the session, never someone the body names', async () => {
    const f = fixture();
    const secret = await secretVersion(f);
    const response = await call(
      f,
      f.owner.token,
      'POST',
      `${versionUrl(f.workspaceId, secret.version)}/restore`,
      {
        body: { note: 'By the owner' },
      },
    );
    expect(response.statusCode).toBe(201);
    expect((await list('limit=1')).json<BrandVersionPage>().items[0]?.created_by).toEqual({
      type: 'user',
      id: f.owner.user.id,
      email: f.owner.user.email,
    });
    const forged = await call(f, f.owner.token, 'POST', `${versionUrl(f.workspaceId, 1)}/restore`, {
      body: { note: 'x', created_by: { type: 'system' } },
    });
    expect(outcome(forged)).toBe('400 invalid_request');
  });
});
