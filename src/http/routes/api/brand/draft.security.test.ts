import { expect, it } from 'vitest';
import type { BrandContext } from '../../../../core/brand-context.js';
import { describeEachBackend } from '#test/support/databases.js';
import { call, outcome, refused, useFixture } from '#test/support/http-fixture.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import {
  demoWithVoice,
  draftApi,
  draftUrl,
  publishUrl,
  resetReview,
} from '#test/support/fixtures/brand-draft.js';
import { addUser } from '#test/support/users.js';

const SECRET_VOICE = 'Unpublished: the spring relaunch voice.';

describeEachBackend(
  'Brand draft (GET, PUT and DELETE /api/v1/workspaces/{id}/brand/draft, POST …/draft/publish): security',
  (backend) => {
    const fixture = useFixture(backend);
    const brand = brandApi(fixture);
    const draft = draftApi(fixture);

    it('lets a member read and save the draft but neither publish nor discard it: 403 insufficient_role, and nothing changes', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const saved = await draft.put(demoWithVoice('A member’s draft.'), { credential: f.member.token });
      expect(saved.statusCode).toBe(200);
      expect((await draft.get(f.member.token)).body).toBe(saved.body);

      await refused(
        f,
        () => draft.publish({ note: 'Mine' }, { credential: f.member.token }),
        '403 insufficient_role',
      );
      await refused(f, () => draft.discard({ credential: f.member.token }), '403 insufficient_role');
      expect((await draft.get()).body).toBe(saved.body);
    });

    it('never shows the draft to readers: GET …/brand and the read operation (brand read key and member token) serve the published brand', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      const published = await brand.get();
      await draft.put(demoWithVoice(SECRET_VOICE));

      expect((await brand.get()).body).toBe(published.body);
      for (const credential of [{ key: f.brandKey }, { authorization: `Bearer ${f.member.token}` }]) {
        const read = await readContext(f.app, f.workspaceId, credential);
        expect(read.statusCode).toBe(200);
        expect(read.body).not.toContain(SECRET_VOICE);
        expect(read.json<BrandContext>().version).toBe(published.json<BrandContext>().version);
      }
    });

    it("answers 403 workspace_forbidden to another workspace's owner on every draft route, leaking no draft and changing nothing", async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice(SECRET_VOICE));
      const url = draftUrl(f.workspaceId);
      const read = await refused(f, () => call(f, f.otherOwner.token, 'GET', url), '403 workspace_forbidden');
      expect(read.body).not.toContain(SECRET_VOICE);
      await refused(
        f,
        () => call(f, f.otherOwner.token, 'PUT', url, { body: demoWithVoice('Hijacked.') }),
        '403 workspace_forbidden',
      );
      await refused(f, () => call(f, f.otherOwner.token, 'DELETE', url), '403 workspace_forbidden');
      await refused(
        f,
        () => call(f, f.otherOwner.token, 'POST', publishUrl(f.workspaceId), { body: {} }),
        '403 workspace_forbidden',
      );
      expect((await draft.get()).json<BrandContext>().voice).toBe(SECRET_VOICE);
    });

    it('refuses keys and anonymous callers on every draft route (API keys hold campaign permissions only), and changes nothing', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice('Keys keep out.'));
      const url = draftUrl(f.workspaceId);
      const cases: [string | undefined, string][] = [
        [f.brandKey, '403 brand_key_not_allowed'],
        [f.apiKey, '403 api_key_not_allowed'],
        [undefined, '401 missing_token'],
      ];
      for (const [credential, expected] of cases) {
        await refused(f, () => call(f, credential, 'GET', url), expected);
        await refused(f, () => call(f, credential, 'PUT', url, { body: demoWithVoice('Keyed.') }), expected);
        await refused(f, () => call(f, credential, 'DELETE', url), expected);
        await refused(
          f,
          () => call(f, credential, 'POST', publishUrl(f.workspaceId), { body: {} }),
          expected,
        );
      }
    });

    it('refuses a member before reading the publish body: 403, not 400, for an invalid note', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice('Checked in order.'));
      const response = await draft.publish({ note: 'Two\nlines' }, { credential: f.member.token });
      expect(outcome(response)).toBe('403 insufficient_role');
    });

    it('keeps an admin removed from the workspace out of the draft at once: 403 workspace_forbidden', async () => {
      const f = fixture();
      await resetReview(f, 'required');
      await draft.put(demoWithVoice('Before the removal.'));
      const { user, token } = await addUser(f, { workspaceId: f.workspaceId, role: 'admin' });
      expect(outcome(await draft.get(token))).toBe('200');
      const removed = await call(
        f,
        f.owner.token,
        'DELETE',
        `/api/v1/workspaces/${f.workspaceId}/members/${user.id}`,
      );
      expect(removed.statusCode).toBe(204);
      await refused(f, () => draft.publish({}, { credential: token }), '403 workspace_forbidden');
      await refused(f, () => draft.get(token), '403 workspace_forbidden');
    });
  },
);
