import { beforeAll, describe, expect, it } from 'vitest';
import type { BrandReadOptions } from '../../contract/brand-views.js';
import { type BrandContext, parseBrandDocument } from '../../core/brand-context.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { replaceBrand } from '../../services/brand/brand.js';
import { DEMO_BRAND } from '../../services/demo/demo-brand.js';
import { describeEachBackend } from '#test/support/databases.js';
import { BRAND_CONTEXT_KEY_ORDER, readContext } from '#test/support/fixtures/brand-agent.js';
import { outcome, problemOf, useFixture } from '#test/support/http-fixture.js';

/** The brand after the fixture's: a new voice and primary color, so every format tells the two apart. */
const CHANGED = {
  ...DEMO_BRAND,
  voice: 'Bold and brief.',
  colors: { ...DEMO_BRAND.colors, primary: '#112233' },
};

describeEachBackend('POST /functions/v1/brand-agent: pinned versions', (backend) => {
  const fixture = useFixture(backend);
  /** The fixture's demo brand (`before`) and the version saved over it (`latest`). */
  let before: number;
  let latest: number;

  beforeAll(async () => {
    const f = fixture();
    const demo = await f.deps.store.brand.get(f.workspaceId);
    before = demo?.version ?? 0;
    const saved = await replaceBrand(f.deps, OPERATOR, f.workspaceId, parseBrandDocument(CHANGED));
    latest = saved.version;
  });

  /** The read operation with `options`, by the fixture's brand read key unless `key` says otherwise. */
  const read = (options: BrandReadOptions, headers: Record<string, string> = {}, key?: string) => {
    const f = fixture();
    return readContext(f.app, f.workspaceId, {
      key: key ?? f.brandKey,
      headers,
      body: { action: 'context', workspace_id: f.workspaceId, ...options },
    });
  };

  describe('Brand-Version', () => {
    it.each<[string, BrandReadOptions]>([
      ['the whole brand as JSON', {}],
      ['Markdown', { format: 'markdown' }],
      ['design tokens', { format: 'dtcg' }],
      ['some sections', { sections: ['voice', 'colors'] }],
    ])('names the latest version on every 200 of %s', async (_label, options) => {
      const response = await read(options);
      expect(response.statusCode).toBe(200);
      expect(response.headers['brand-version']).toBe(String(latest));
    });

    it('names the version on a 304 too', async () => {
      const etag = String((await read({})).headers.etag);
      const again = await read({}, { 'if-none-match': etag });
      expect(again.statusCode).toBe(304);
      expect(again.headers['brand-version']).toBe(String(latest));
    });

    it('names the pinned version on a pinned read', async () => {
      const response = await read({ version: before });
      expect(response.statusCode).toBe(200);
      expect(response.headers['brand-version']).toBe(String(before));
    });
  });

  describe('the brand as it was', () => {
    it('answers the whole brand of a pinned version as JSON, exactly as it was, in the documented key order', async () => {
      const response = await read({ version: before });
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      const brand = response.json<BrandContext>();
      expect(Object.keys(brand)).toEqual(BRAND_CONTEXT_KEY_ORDER);
      expect(brand).toMatchObject({ version: before, voice: DEMO_BRAND.voice, name: 'Acme Coffee' });
      expect(brand.colors.primary).toBe(DEMO_BRAND.colors?.primary);
      const now = (await read({})).json<BrandContext>();
      expect(now).toMatchObject({ version: latest, voice: 'Bold and brief.' });
    });

    it('answers the version the latest is at with the same bytes and ETag as the latest', async () => {
      const [pinned, now] = [await read({ version: latest }), await read({})];
      expect(pinned.body).toBe(now.body);
      expect(pinned.headers.etag).toBe(now.headers.etag);
    });

    it('answers version 1, the brand the workspace was created with', async () => {
      const response = await read({ version: 1 });
      expect(response.statusCode).toBe(200);
      expect(response.json<BrandContext>()).toMatchObject({ version: 1, name: 'Acme Coffee', voice: '' });
    });

    it('answers a pinned version in Markdown', async () => {
      const pinned = await read({ version: before, format: 'markdown' });
      expect(pinned.statusCode).toBe(200);
      expect(pinned.headers['content-type']).toBe('text/markdown; charset=utf-8');
      expect(pinned.body).toContain(`## Voice\n${String(DEMO_BRAND.voice)}`);
      expect(pinned.body).not.toContain('Bold and brief.');
      expect((await read({ format: 'markdown' })).body).toContain('## Voice\nBold and brief.');
    });

    it('answers a pinned version as design tokens', async () => {
      const pinned = await read({ version: before, format: 'dtcg' });
      expect(pinned.statusCode).toBe(200);
      expect(pinned.headers['content-type']).toBe('application/design-tokens+json; charset=utf-8');
      expect(pinned.body).toContain(String(DEMO_BRAND.colors?.primary));
      expect(pinned.body).not.toContain('#112233');
      expect((await read({ format: 'dtcg' })).body).toContain('#112233');
    });

    it('answers only the asked sections of a pinned version, with its knowledge filters', async () => {
      const pinned = await read({
        version: before,
        sections: ['voice', 'knowledge'],
        knowledge_kinds: ['fact'],
      });
      expect(pinned.statusCode).toBe(200);
      const body = pinned.json<Pick<BrandContext, 'voice' | 'knowledge' | 'version'>>();
      expect(Object.keys(body)).toEqual(['workspace_id', 'voice', 'knowledge', 'updated_at', 'version']);
      expect(body).toMatchObject({ voice: DEMO_BRAND.voice, version: before });
      expect(new Set(body.knowledge.map((entry) => entry.kind))).toEqual(new Set(['fact']));
      const markdown = await read({ version: before, format: 'markdown', sections: ['voice'] });
      expect(markdown.body).toBe(`# Acme Coffee\n\n## Voice\n${String(DEMO_BRAND.voice)}\n`);
    });

    it('reads a pinned version with a member’s token too', async () => {
      const f = fixture();
      const response = await read({ version: before }, {}, f.member.token);
      expect(response.statusCode).toBe(200);
      expect(response.headers['brand-version']).toBe(String(before));
    });
  });

  describe('ETags', () => {
    const views: BrandReadOptions[] = [
      {},
      { format: 'markdown' },
      { format: 'dtcg' },
      { sections: ['voice'] },
    ];

    it('gives each pinned view an ETag of its own, unlike the latest’s, and the same one every time', async () => {
      for (const view of views) {
        const pinned = await read({ ...view, version: before });
        const again = await read({ ...view, version: before });
        const now = await read(view);
        expect(pinned.headers.etag, JSON.stringify(view)).toBe(again.headers.etag);
        expect(pinned.headers.etag, JSON.stringify(view)).not.toBe(now.headers.etag);
      }
      const etags = await Promise.all(
        views.map(async (view) => (await read({ ...view, version: before })).headers.etag),
      );
      expect(new Set(etags).size).toBe(views.length);
    });

    it('answers a pinned view’s own ETag with 304, and the latest’s with 200', async () => {
      for (const view of views) {
        const etag = String((await read({ ...view, version: before })).headers.etag);
        const own = await read({ ...view, version: before }, { 'if-none-match': etag });
        expect(own.statusCode, JSON.stringify(view)).toBe(304);
        expect(own.body).toBe('');
        expect(own.headers.etag).toBe(etag);
        const latestEtag = String((await read(view)).headers.etag);
        const other = await read({ ...view, version: before }, { 'if-none-match': latestEtag });
        expect(other.statusCode, JSON.stringify(view)).toBe(200);
        expect(other.headers.etag).toBe(etag);
      }
    });

    it('keeps a pinned version’s bytes and ETag when the brand changes again', async () => {
      const f = fixture();
      const pinned = await read({ version: latest, format: 'markdown' });
      await replaceBrand(
        f.deps,
        OPERATOR,
        f.workspaceId,
        parseBrandDocument({ ...CHANGED, voice: 'Quiet.' }),
      );
      try {
        const again = await read(
          { version: latest, format: 'markdown' },
          { 'if-none-match': String(pinned.headers.etag) },
        );
        expect(again.statusCode).toBe(304);
        const whole = await read({ version: latest, format: 'markdown' });
        expect(whole.body).toBe(pinned.body);
        expect((await read({ format: 'markdown' })).body).toContain('Quiet.');
      } finally {
        latest = (await replaceBrand(f.deps, OPERATOR, f.workspaceId, parseBrandDocument(CHANGED))).version;
      }
    });
  });

  describe('refusals', () => {
    it('answers a version the brand does not have with 404 version_not_found', async () => {
      for (const version of [latest + 1, 2 ** 31]) {
        const response = await read({ version });
        expect(outcome(response), String(version)).toBe('404 version_not_found');
        expect(problemOf(response).detail).toContain(`no version ${String(version)}`);
        expect(response.headers['brand-version']).toBeUndefined();
      }
      const markdown = await read({ version: latest + 1, format: 'markdown', sections: ['voice'] });
      expect(outcome(markdown)).toBe('404 version_not_found');
    });

    it('answers 404 version_not_found for a version published after it was first asked, then the version once it exists', async () => {
      const f = fixture();
      const next = latest + 1;
      expect(outcome(await read({ version: next }))).toBe('404 version_not_found');
      latest = (
        await replaceBrand(
          f.deps,
          OPERATOR,
          f.workspaceId,
          parseBrandDocument({ ...CHANGED, voice: 'Next.' }),
        )
      ).version;
      expect(latest).toBe(next);
      const response = await read({ version: next });
      expect(response.statusCode).toBe(200);
      expect(response.json<BrandContext>().voice).toBe('Next.');
    });

    it('refuses a key of another workspace with 403 before looking at the version', async () => {
      const f = fixture();
      for (const version of [before, 999_999]) {
        const response = await read({ version }, {}, f.otherBrandKey);
        expect(outcome(response), String(version)).toBe('403 workspace_forbidden');
      }
    });

    it.each<[string, unknown]>([
      ['zero', 0],
      ['negative', -1],
      ['a fraction', 1.5],
      ['a string', '2'],
      ['above 2^31', 2 ** 31 + 1],
      ['null', null],
    ])('refuses a version that is %s with 400 invalid_request naming the field', async (_label, version) => {
      const f = fixture();
      const response = await readContext(f.app, f.workspaceId, {
        key: f.brandKey,
        body: { action: 'context', workspace_id: f.workspaceId, version },
      });
      expect(outcome(response)).toBe('400 invalid_request');
      expect(problemOf(response).errors?.map((issue) => issue.field)).toEqual(['version']);
    });
  });
});
