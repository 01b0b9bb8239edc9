import { expect, it } from 'vitest';
import type { BrandViewOptions } from '../../contract/brand-views.js';
import { BRAND_SECTIONS, type BrandContext, type BrandSection } from '../../core/brand-context.js';
import { parseBrandDocument } from '../../core/brand-context.js';
import { DTCG_SECTIONS } from '../../core/brand-views.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { replaceBrand } from '../../services/brand/brand.js';
import { DEMO_BRAND } from '../../services/demo/demo-brand.js';
import { openStore } from '../../store/open-store.js';
import { pollUntil } from '../../../test/cli/cli-process.js';
import { listenOnLoopback } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { BRAND_CONTEXT_KEY_ORDER, PATH, readContext } from '#test/support/fixtures/brand-agent.js';
import { brandApi } from '#test/support/fixtures/brand.js';
import { useFixture } from '#test/support/http-fixture.js';

/** The `## Heading` each section has in Markdown: the name is the `#` title and the description a paragraph. */
const MARKDOWN_HEADINGS: Partial<Record<BrandSection, string>> = {
  voice: 'Voice',
  colors: 'Colors',
  fonts: 'Fonts',
  social: 'Social',
  knowledge: 'Knowledge',
  assets: 'Assets',
  skills: 'Skills',
  preferences: 'Preferences',
  rules: 'Rules',
};
const DTCG_GROUPS: Record<(typeof DTCG_SECTIONS)[number], string> = { colors: 'color', fonts: 'font' };

type Format = NonNullable<BrandViewOptions['format']>;
type ViewCase = [label: string, format: Format, sections: BrandSection[] | undefined];
const SECTIONS_OF: Record<Format, readonly BrandSection[]> = {
  json: BRAND_SECTIONS,
  markdown: BRAND_SECTIONS,
  dtcg: DTCG_SECTIONS,
};

/** Each section alone, a pair (asked last first), all of them, and none given; for every format. */
const VIEW_CASES = (Object.keys(SECTIONS_OF) as Format[]).flatMap((format) => {
  const all = SECTIONS_OF[format];
  const pair = [all.at(-1), all[0]].filter((section) => section !== undefined);
  const named = (sections: readonly BrandSection[]) => `sections ${sections.join(', ')}`;
  return [
    ...all.map((section): ViewCase => [`${format} with section ${section}`, format, [section]]),
    [`${format} with ${named(pair)}`, format, pair],
    [`${format} with all sections`, format, [...all]],
    [`${format} with no sections given`, format, undefined],
  ] satisfies ViewCase[];
});

const CONTENT_TYPES: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  dtcg: 'application/design-tokens+json; charset=utf-8',
};

/** The sections a body shows, as its reader finds them: JSON keys, Markdown headings, DTCG groups. */
function shownSections(format: Format, body: string): string[] {
  if (format === 'json') return Object.keys(JSON.parse(body) as object);
  if (format === 'markdown') return body.match(/^## .+$/gm) ?? [];
  return Object.keys(JSON.parse(body) as object).filter((key) => !key.startsWith('$'));
}

/** What `shownSections` should find for `asked` sections (in the documented order, whatever the asked one). */
function expectedSections(format: Format, asked: readonly BrandSection[] | undefined): string[] {
  const sections = SECTIONS_OF[format].filter((section) => asked?.includes(section) ?? true);
  if (format === 'json')
    return asked ? ['workspace_id', ...sections, 'updated_at', 'version'] : BRAND_CONTEXT_KEY_ORDER;
  if (format === 'markdown')
    return sections.flatMap((section) => {
      const heading = MARKDOWN_HEADINGS[section];
      return heading ? [`## ${heading}`] : [];
    });
  return sections.map((section) => DTCG_GROUPS[section as keyof typeof DTCG_GROUPS]);
}

const GUIDELINES_ON_STYLE = ['Emoji', 'Sign-off', 'Inclusive language', 'Prices'];

describeEachBackend('POST /functions/v1/brand-agent: formats and sections', (backend) => {
  const fixture = useFixture(backend);
  const { put } = brandApi(fixture);

  /** The read operation with `options` beside action and workspace_id, by the fixture's brand read key. */
  const read = (options: BrandViewOptions, headers: Record<string, string> = {}) => {
    const { app, workspaceId, brandKey: key } = fixture();
    return readContext(app, workspaceId, {
      key,
      headers,
      body: { action: 'context', workspace_id: workspaceId, ...options },
    });
  };
  const etagOf = async (options: BrandViewOptions) => String((await read(options)).headers.etag);

  it.each(VIEW_CASES)('answers %s with exactly those sections', async (_label, format, sections) => {
    const response = await read({ format, sections });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe(CONTENT_TYPES[format]);
    expect(shownSections(format, response.body)).toEqual(expectedSections(format, sections));
    if (format === 'markdown') {
      expect(response.body.startsWith('# Acme Coffee\n')).toBe(true);
      const describes = sections?.includes('description') ?? true;
      expect(response.body.includes(DEMO_BRAND.description ?? '')).toBe(describes);
    }
  });

  it('keeps only the knowledge entries of the asked kinds and tags (any tag, in any case) in JSON', async () => {
    const titles = async (options: BrandViewOptions) =>
      (await read(options)).json<Pick<BrandContext, 'knowledge'>>().knowledge.map((entry) => entry.title);
    expect(
      await titles({ sections: ['knowledge'], knowledge_kinds: ['guideline'], knowledge_tags: ['STYLE'] }),
    ).toEqual(GUIDELINES_ON_STYLE);
    expect(await titles({ knowledge_tags: ['Impact', 'voice'] })).toEqual([
      'Certification',
      'Packaging',
      'Talk like a barista',
      'Never salesy',
    ]);
    expect(
      await titles({ sections: ['knowledge'], knowledge_kinds: ['fact'], knowledge_tags: ['voice'] }),
    ).toEqual([]);
    const whole = (await read({ knowledge_kinds: ['reference'] })).json<BrandContext>();
    expect(Object.keys(whole)).toEqual(BRAND_CONTEXT_KEY_ORDER);
    expect(new Set(whole.knowledge.map((entry) => entry.kind))).toEqual(new Set(['reference']));
  });

  it('keeps only the knowledge entries of the asked kinds and tags in Markdown, and says when none is left', async () => {
    const filtered = await read({
      format: 'markdown',
      sections: ['knowledge'],
      knowledge_kinds: ['guideline'],
      knowledge_tags: ['style'],
    });
    expect(filtered.body).toContain('### Guidelines');
    expect(filtered.body).not.toMatch(/### (Facts|References)/);
    for (const title of GUIDELINES_ON_STYLE) expect(filtered.body).toContain(`**${title}**`);
    expect(filtered.body).not.toContain('Talk like a barista');

    const none = await read({
      format: 'markdown',
      sections: ['knowledge'],
      knowledge_tags: ['nothing-tagged'],
    });
    expect(none.body).toBe('# Acme Coffee\n\n## Knowledge\n_No entry matches the filter._\n');
    const whole = await read({ format: 'markdown', knowledge_tags: ['styles'] });
    expect(whole.body.match(/^## .+$/gm)).toContain('## Knowledge');
    expect(whole.body).toContain('## Knowledge\n_No entry matches the filter._\n');
  });

  it('gives each view its own ETag, and the same options asked in another order the same one', async () => {
    const etags = [
      await etagOf({}),
      await etagOf({ format: 'markdown' }),
      await etagOf({ format: 'dtcg' }),
      await etagOf({ format: 'markdown', sections: ['voice', 'colors'] }),
      await etagOf({ sections: ['voice', 'colors'] }),
    ];
    expect(new Set(etags).size).toBe(etags.length);
    expect(await etagOf({ format: 'json' })).toBe(etags[0]);
    expect(await etagOf({ format: 'markdown', sections: ['colors', 'voice', 'voice'] })).toBe(etags[3]);
    expect(await etagOf({ format: 'markdown', sections: [...BRAND_SECTIONS] })).toBe(etags[1]);
    expect(await etagOf({ format: 'dtcg', sections: ['fonts', 'colors'] })).toBe(etags[2]);
    expect(
      await etagOf({
        sections: ['knowledge'],
        knowledge_kinds: ['fact', 'guideline'],
        knowledge_tags: ['Style', 'voice'],
      }),
    ).toBe(
      await etagOf({
        knowledge_tags: ['VOICE', 'style'],
        knowledge_kinds: ['guideline', 'fact'],
        sections: ['knowledge'],
      }),
    );
  });

  it("answers each view's own ETag with 304, and another view's with 200", async () => {
    const views: BrandViewOptions[] = [{}, { format: 'markdown' }, { format: 'dtcg', sections: ['colors'] }];
    const etags = await Promise.all(views.map(etagOf));
    for (const [index, options] of views.entries()) {
      const own = await read(options, { 'if-none-match': etags[index] ?? '' });
      expect(own.statusCode, JSON.stringify(options)).toBe(304);
      expect(own.body).toBe('');
      expect(own.headers.etag).toBe(etags[index]);
      const other = etags[(index + 1) % etags.length] ?? '';
      const mismatched = await read(options, { 'if-none-match': other });
      expect(mismatched.statusCode, JSON.stringify(options)).toBe(200);
      expect(mismatched.headers.etag).toBe(etags[index]);
    }
  });

  it("answers Node's fetch asking again for a Markdown view with an empty 304", async () => {
    const { app, workspaceId, brandKey: key } = fixture();
    const port = await listenOnLoopback(app);
    try {
      const ask = (headers: Record<string, string> = {}) =>
        fetch(`http://127.0.0.1:${String(port)}${PATH}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
          body: JSON.stringify({ action: 'context', workspace_id: workspaceId, format: 'markdown' }),
        });
      const first = await ask();
      expect(first.headers.get('content-type')).toBe(CONTENT_TYPES.markdown);
      const etag = first.headers.get('etag') ?? '';
      await first.arrayBuffer();
      const again = await ask({ 'if-none-match': etag });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(etag);
      expect(await again.text()).toBe('');
    } finally {
      app.server.close();
    }
  });

  it('re-renders every view asked before a brand is saved, each with a new ETag', async () => {
    const views: BrandViewOptions[] = [
      { format: 'markdown' },
      { format: 'markdown', sections: ['voice'] },
      { sections: ['voice'] },
      {},
    ];
    const before = await Promise.all(views.map((options) => read(options)));
    expect((await put({ ...DEMO_BRAND, voice: 'Bold and brief.' })).statusCode).toBe(200);
    try {
      for (const [index, options] of views.entries()) {
        const previous = String(before[index]?.headers.etag);
        const after = await read(options, { 'if-none-match': previous });
        expect(after.statusCode, JSON.stringify(options)).toBe(200);
        expect(after.headers.etag).not.toBe(previous);
        expect(after.body).toContain('Bold and brief.');
        expect(before[index]?.body).not.toContain('Bold and brief.');
      }
    } finally {
      await put(DEMO_BRAND);
    }
  });

  it('re-renders a cached Markdown view when another node saves the brand (the change feed)', async () => {
    const f = fixture();
    const asked: BrandViewOptions = { format: 'markdown', sections: ['voice'] };
    expect((await read(asked)).body).not.toContain('Bold and brief.');
    const otherNode = await openStore(f.database.config);
    const save = (voice: string | undefined) =>
      replaceBrand(
        { store: otherNode, clock: f.clock },
        OPERATOR,
        f.workspaceId,
        parseBrandDocument({ ...DEMO_BRAND, voice }),
      );
    try {
      await save('Bold and brief.');
      const { value } = await pollUntil(
        () => read(asked),
        (response) => response.body.includes('Bold and brief.'),
      );
      expect(value.body).toBe('# Acme Coffee\n\n## Voice\nBold and brief.\n');
    } finally {
      await save(DEMO_BRAND.voice);
      await otherNode.close();
    }
  });
});
