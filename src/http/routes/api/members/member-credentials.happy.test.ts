import { describe, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { campaignsApi } from '#test/support/fixtures/campaigns.js';
import { createKey, keysUrl } from '#test/support/fixtures/keys.js';
import {
  idsMadeBy,
  idsOf,
  listedKeys,
  listedWebhooks,
  type MemberCredentials,
  newCreator,
  removalApi,
} from '#test/support/fixtures/member-credentials.js';
import { deliveriesOf, newWebhook, webhooksApi } from '#test/support/fixtures/webhooks.js';
import { auditLog, call, outcome, useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';

describeEachBackend('Removing a member, and what they created: the happy paths', (backend) => {
  const fixture = useFixture(backend);

  describe('before the removal', () => {
    it('lists what a member created that still works — their active keys of both kinds and enabled endpoints — and nothing of anyone else’s', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      // What they made that no longer works is not listed: a revoked key, a disabled endpoint.
      const revoked = await createKey(f, 'revoked already', creator.token, 'brand-keys');
      expect(
        outcome(await call(f, f.owner.token, 'DELETE', keysUrl(f, 'brand-keys') + `/${revoked.id}`)),
      ).toBe('200');
      const paused = await newWebhook(f, { description: 'paused' }, creator.token);
      expect(outcome(await webhooksApi(f, f.owner.token).patch(paused.id, { enabled: false }))).toBe('200');
      // Nor what others made.
      await createKey(f, 'the owner’s key', f.owner.token, 'brand-keys');
      expect((await newWebhook(f, {}, f.owner.token)).created_by).toBe(f.owner.user.id);

      for (const caller of [f.owner, f.admin]) {
        const response = await removalApi(f, caller.token).credentials(creator.user.id);
        expect(response.statusCode).toBe(200);
        expect(idsOf(response)).toEqual(idsMadeBy(creator));
        const { brand_keys: brandKeys, webhooks } = response.json<MemberCredentials>();
        const [brandKey] = brandKeys;
        const [webhook] = webhooks;
        expect(brandKey).toMatchObject({
          name: 'their brand key',
          prefix: creator.brandKey.prefix,
          status: 'active',
          created_by: creator.user.id,
        });
        expect(webhook).toMatchObject({
          url: creator.webhook.url,
          enabled: true,
          created_by: creator.user.id,
        });
        expect(webhook).not.toHaveProperty('secret');
        expect(response.body).not.toContain(creator.brandKey.key);
        expect(response.body).not.toContain(creator.webhook.secret);
      }
    });

    it('answers empty lists for a member who created nothing', async () => {
      const f = fixture();
      const response = await removalApi(f, f.owner.token).credentials(f.member.user.id);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ brand_keys: [], api_keys: [], webhooks: [] });
    });
  });

  describe('without revoke_credentials', () => {
    it('removes the member as before (204); what they made keeps working, and the listings mark it as made by a former member', async () => {
      const f = fixture();
      const creator = await newCreator(f);
      const owners = await createKey(f, 'made by the owner', f.owner.token, 'brand-keys');
      const response = await removalApi(f, f.owner.token).remove(creator.user.id);
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');

      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
      expect(outcome(await campaignsApi(f, creator.apiKey.key).list())).toBe('200');
      const former = { user_id: creator.user.id, email: creator.user.email, former_member: true };
      const brandKeys = await listedKeys(f, 'brand-keys');
      expect(brandKeys.find((key) => key.id === creator.brandKey.id)).toMatchObject({
        status: 'active',
        created_by: creator.user.id,
        creator: former,
      });
      expect(brandKeys.find((key) => key.id === owners.id)?.creator).toEqual({
        user_id: f.owner.user.id,
        email: f.owner.user.email,
        former_member: false,
      });
      // The fixture's keys were made by the operator, with the CLI: no one to name.
      expect(brandKeys.find((key) => key.id === f.brandKeyId)?.creator).toBeNull();
      expect((await listedKeys(f, 'api-keys')).find((key) => key.id === creator.apiKey.id)).toMatchObject({
        status: 'active',
        creator: former,
      });
      expect((await listedWebhooks(f)).find((webhook) => webhook.id === creator.webhook.id)).toMatchObject({
        enabled: true,
        created_by: creator.user.id,
        creator: former,
      });

      const removal = (await auditLog(f)).find(
        (event) => event.action === 'member.removed' && event.target.id === creator.user.id,
      );
      expect(removal?.details).toEqual({ email: creator.user.email, role: 'admin' });
    });

    it('removes as without it when revoke_credentials is false, or with an empty JSON body', async () => {
      const f = fixture();
      for (const [query, body] of [
        ['?revoke_credentials=false', undefined],
        ['', {}],
      ] as const) {
        const creator = await newCreator(f);
        const response = await removalApi(f, f.owner.token).remove(creator.user.id, query, { body });
        expect(outcome(response)).toBe('204');
        expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
      }
    });
  });

  describe('with revoke_credentials', () => {
    it('revokes their keys and disables their endpoints in the removal: 200 with what it did, and the keys stop working at once', async () => {
      const f = fixture();
      const watcher = await newWebhook(
        f,
        { events: ['brand_key.revoked', 'api_key.revoked', 'member.removed'] },
        f.owner.token,
      );
      const creator = await newCreator(f);
      // Both keys in use, so the service holds them as verified: revocation must reach past that.
      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe('200');
      expect(outcome(await campaignsApi(f, creator.apiKey.key).list())).toBe('200');

      const response = await removalApi(f, f.admin.token).remove(creator.user.id, '?revoke_credentials=true');
      expect(response.statusCode).toBe(200);
      expect(idsOf(response)).toEqual(idsMadeBy(creator));
      const done = response.json<MemberCredentials>();
      expect(done.brand_keys.map((key) => key.status)).toEqual(['revoked']);
      expect(done.api_keys.map((key) => key.status)).toEqual(['revoked']);
      expect(done.webhooks.map(({ enabled, disabled_reason }) => ({ enabled, disabled_reason }))).toEqual([
        { enabled: false, disabled_reason: 'manual' },
      ]);

      expect(outcome(await readContext(f.app, f.workspaceId, { key: creator.brandKey.key }))).toBe(
        '401 key_revoked',
      );
      expect(outcome(await campaignsApi(f, creator.apiKey.key).list())).toBe('401 api_key_revoked');
      const former = { user_id: creator.user.id, email: creator.user.email, former_member: true };
      expect((await listedKeys(f, 'brand-keys')).find((key) => key.id === creator.brandKey.id)).toMatchObject(
        { status: 'revoked', creator: former },
      );
      expect((await listedWebhooks(f)).find((webhook) => webhook.id === creator.webhook.id)).toMatchObject({
        enabled: false,
        disabled_reason: 'manual',
        creator: former,
      });
      // The other keys of the workspace are untouched.
      expect(outcome(await readContext(f.app, f.workspaceId, { key: f.brandKey }))).toBe('200');

      // Each change audited as the admin's, saying why.
      const events = await auditLog(f);
      const actor = { type: 'user', id: f.admin.user.id, email: f.admin.user.email };
      const entry = (action: string, targetId: string) =>
        events.find((event) => event.action === action && event.target.id === targetId);
      expect(entry('brand_key.revoked', creator.brandKey.id)).toMatchObject({
        actor,
        details: { name: 'their brand key', prefix: creator.brandKey.prefix, reason: 'creator_removed' },
      });
      expect(entry('api_key.revoked', creator.apiKey.id)).toMatchObject({
        actor,
        details: { name: 'their API key', reason: 'creator_removed' },
      });
      expect(entry('webhook.updated', creator.webhook.id)).toMatchObject({
        actor,
        details: { enabled: false, reason: 'creator_removed' },
      });
      expect(entry('member.removed', creator.user.id)).toMatchObject({
        actor,
        details: {
          email: creator.user.email,
          role: 'admin',
          revoked_brand_keys: 1,
          revoked_api_keys: 1,
          disabled_webhooks: 1,
        },
      });

      // The events went out through the outbox, to every enabled endpoint but the removed member's own.
      const sent = (await deliveriesOf(f, watcher.id)).map((delivery) => delivery.event_type);
      expect(sent.sort()).toEqual(['api_key.revoked', 'brand_key.revoked', 'member.removed']);
      expect(await deliveriesOf(f, creator.webhook.id)).toEqual([]);
    });

    it('answers empty lists, and removes the member, when they created nothing', async () => {
      const f = fixture();
      const { user } = await addUser(f, { workspaceId: f.workspaceId, role: 'member' });
      const response = await removalApi(f, f.owner.token).remove(user.id, '?revoke_credentials=true');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ brand_keys: [], api_keys: [], webhooks: [] });
      expect(outcome(await removalApi(f, f.owner.token).credentials(user.id))).toBe('404 member_not_found');
    });
  });
});
