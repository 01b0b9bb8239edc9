import { expect, it } from 'vitest';
import { hashKey } from '../../../../core/secret-keys.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { call, isoNow, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { campaignsApi, MINUTE_MS } from '#test/support/fixtures/campaigns.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { type CreatedKey, createKey, keysUrl, listKeys } from '#test/support/fixtures/keys.js';

describeEachBackend(
  'Workspace keys (/api/v1/workspaces/{id}/api-keys and brand-keys): security',
  (backend) => {
    const fixture = useFixture(backend);

    it('never lists a key, its secret part or its hash', async () => {
      const f = fixture();
      const created = await createKey(f, 'listing');
      const response = await call(f, f.owner.token, 'GET', keysUrl(f));
      expect(response.body).toContain(created.id);
      for (const secret of [created.key, created.key.slice(4, 34), hashKey(created.key)])
        expect(response.body).not.toContain(secret);
      expect(response.body).not.toMatch(/[0-9a-f]{64}/);
    });

    it('does not count a refused request with a revoked key as a use', async () => {
      const f = fixture();
      const created = await createKey(f, 'revoked use');
      await campaignsApi(f, created.key).list();
      const usedAt = isoNow(f);
      await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${created.id}`);
      f.clock.advance(MINUTE_MS);
      expect(outcome(await campaignsApi(f, created.key).list())).toBe('401 api_key_revoked');
      expect((await listKeys(f)).find((key) => key.id === created.id)?.last_used_at).toBe(usedAt);
    });

    it('answers 404 api_key_not_found to revoking an unknown key, a brand key, or a key of another workspace', async () => {
      const f = fixture();
      const brandKeyId = (await listKeys(f, 'brand-keys'))[0]?.id ?? 'bk_missing';
      const theirs = await call(
        f,
        f.otherOwner.token,
        'POST',
        `/api/v1/workspaces/${f.otherWorkspaceId}/api-keys`,
        {
          body: { name: 'theirs' },
        },
      );
      const before = await snapshotTables(f.database.config);
      const responses = [
        await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/ak_DoesNotExist`),
        await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${brandKeyId}`),
        await call(f, f.owner.token, 'DELETE', `${keysUrl(f)}/${theirs.json<CreatedKey>().id}`),
      ];
      expect(responses.map(outcome)).toEqual(Array(3).fill('404 api_key_not_found'));
      // and the other way round: an API key is no brand key
      const crossed = await call(
        f,
        f.owner.token,
        'DELETE',
        `/api/v1/workspaces/${f.workspaceId}/brand-keys/${f.apiKeyId}`,
      );
      expect(outcome(crossed)).toBe('404 key_not_found');
      expect(await snapshotTables(f.database.config)).toEqual(before);
      expect((await campaignsApi(f, f.apiKey).list()).statusCode).toBe(200);
    });

    it('lets a member list the keys read-only (never a secret) and answers 403 insufficient_role to their writes', async () => {
      const f = fixture();
      const listed = await call(f, f.member.token, 'GET', keysUrl(f));
      expect(listed.statusCode).toBe(200);
      expect(listed.json<{ keys: { id: string }[] }>().keys.map((key) => key.id)).toContain(f.apiKeyId);
      expect(listed.body).not.toContain(f.apiKey);
      const before = await snapshotTables(f.database.config);
      const writes = [
        await call(f, f.member.token, 'POST', keysUrl(f), { body: { name: 'member key' } }),
        await call(f, f.member.token, 'DELETE', `${keysUrl(f)}/${f.apiKeyId}`),
      ];
      expect(writes.map(outcome)).toEqual(Array(2).fill('403 insufficient_role'));
      expect(await snapshotTables(f.database.config)).toEqual(before);
    });
    it("answers 404 key_not_found to an owner who revokes another workspace's brand read key under their own, and the key keeps working", async () => {
      const f = fixture();
      const theirs = await call(f, f.otherOwner.token, 'POST', keysUrl(f, 'brand-keys', f.otherWorkspaceId), {
        body: { name: 'theirs' },
      });
      const { id, key } = theirs.json<CreatedKey>();
      await refused(
        f,
        () => call(f, f.owner.token, 'DELETE', `${keysUrl(f, 'brand-keys')}/${id}`),
        '404 key_not_found',
      );
      expect((await readContext(f.app, f.otherWorkspaceId, { key })).statusCode).toBe(200);
    });

    it("answers 403 workspace_forbidden to another workspace's owner on every key route, leaking no key and changing nothing", async () => {
      const f = fixture();
      for (const [kind, keyId] of [
        ['api-keys', f.apiKeyId],
        ['brand-keys', f.brandKeyId],
      ] as const) {
        const url = keysUrl(f, kind);
        const listed = await refused(
          f,
          () => call(f, f.otherOwner.token, 'GET', url),
          '403 workspace_forbidden',
        );
        expect(listed.body).not.toContain(keyId);
        await refused(
          f,
          () => call(f, f.otherOwner.token, 'POST', url, { body: { name: 'x' } }),
          '403 workspace_forbidden',
        );
        await refused(
          f,
          () => call(f, f.otherOwner.token, 'DELETE', `${url}/${keyId}`),
          '403 workspace_forbidden',
        );
      }
      expect((await campaignsApi(f, f.apiKey).list()).statusCode).toBe(200);
      expect((await readContext(f.app, f.workspaceId, { key: f.brandKey })).statusCode).toBe(200);
    });

    it('answers 403 insufficient_role to a member who creates or revokes a brand read key, and changes nothing', async () => {
      const f = fixture();
      const url = keysUrl(f, 'brand-keys');
      await refused(
        f,
        () => call(f, f.member.token, 'POST', url, { body: { name: 'member key' } }),
        '403 insufficient_role',
      );
      await refused(
        f,
        () => call(f, f.member.token, 'DELETE', `${url}/${f.brandKeyId}`),
        '403 insufficient_role',
      );
    });

    it('lets no key manage keys: 403 brand_key_not_allowed and api_key_not_allowed, and without credentials 401 missing_token', async () => {
      const f = fixture();
      for (const kind of ['api-keys', 'brand-keys'] as const) {
        const url = keysUrl(f, kind);
        await refused(
          f,
          () => call(f, f.brandKey, 'POST', url, { body: { name: 'x' } }),
          '403 brand_key_not_allowed',
        );
        await refused(
          f,
          () => call(f, f.apiKey, 'POST', url, { body: { name: 'x' } }),
          '403 api_key_not_allowed',
        );
        await refused(
          f,
          () => call(f, f.apiKey, 'DELETE', `${url}/${f.apiKeyId}`),
          '403 api_key_not_allowed',
        );
        await refused(f, () => call(f, undefined, 'GET', url), '401 missing_token');
      }
    });
  },
);
