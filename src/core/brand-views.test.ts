import { describe, expect, it } from 'vitest';
import { demoBrandContext } from '#test/support/fixtures/demo-brand.js';
import { BRAND_SECTIONS, serializeBrandContext } from './brand-context.js';
import {
  brandView,
  type BrandViewRequest,
  renderBrandView,
  viewJson,
  viewKnowledge,
  WHOLE_BRAND_JSON,
} from './brand-views.js';

const demo = demoBrandContext();

function key(request: BrandViewRequest): string {
  return brandView(request).key;
}

function titles(request: BrandViewRequest): string[] {
  return viewKnowledge(demo.knowledge, brandView(request)).map((entry) => entry.title);
}

describe('brandView', () => {
  it('answers the whole brand as JSON when no option is sent, or only format json', () => {
    expect(brandView({})).toBe(WHOLE_BRAND_JSON);
    expect(brandView({ format: 'json' })).toBe(WHOLE_BRAND_JSON);
    expect(WHOLE_BRAND_JSON.sections).toEqual(BRAND_SECTIONS);
  });

  it('names the same view whatever the order of its sections, and keeps them in the documented order', () => {
    const view = brandView({ format: 'markdown', sections: ['knowledge', 'voice', 'colors'] });
    expect(view.sections).toEqual(['voice', 'colors', 'knowledge']);
    expect(key({ format: 'markdown', sections: ['colors', 'knowledge', 'voice'] })).toBe(view.key);
  });

  it('ignores repeated sections, kinds and tags', () => {
    expect(key({ format: 'markdown', sections: ['voice', 'voice', 'colors'] })).toBe(
      key({ format: 'markdown', sections: ['colors', 'voice'] }),
    );
    expect(key({ sections: ['knowledge'], knowledge_kinds: ['fact', 'guideline', 'fact'] })).toBe(
      key({ sections: ['knowledge'], knowledge_kinds: ['guideline', 'fact'] }),
    );
    expect(key({ knowledge_tags: ['style', 'voice', 'style'] })).toBe(
      key({ knowledge_tags: ['voice', 'style'] }),
    );
  });

  it('compares tags without case or surrounding spaces', () => {
    expect(key({ knowledge_tags: ['Voice', ' STYLE '] })).toBe(key({ knowledge_tags: ['style', 'voice'] }));
    expect(brandView({ knowledge_tags: ['Voice'] }).tags).toEqual(new Set(['voice']));
  });

  it('tells tags holding commas from several tags', () => {
    expect(key({ knowledge_tags: ['a,b'] })).not.toBe(key({ knowledge_tags: ['a', 'b'] }));
  });

  it('tells an empty filter set (keeping no entry) from no filter (keeping every entry)', () => {
    const none = brandView({ format: 'markdown', knowledge_kinds: [] });
    const every = brandView({ format: 'markdown' });
    expect(none.key).not.toBe(every.key);
    expect(viewKnowledge(demo.knowledge, none)).toEqual([]);
    expect(viewKnowledge(demo.knowledge, every)).toBe(demo.knowledge);
    expect(key({ format: 'markdown', knowledge_tags: [] })).not.toBe(every.key);
  });

  it('gives each format its own key for the same sections', () => {
    const keys = (['json', 'markdown', 'dtcg'] as const).map((format) =>
      key({ format, sections: ['colors'] }),
    );
    expect(new Set(keys).size).toBe(3);
  });

  it('names the same view when every section of the format is named as when none is', () => {
    expect(brandView({ sections: [...BRAND_SECTIONS] })).toBe(WHOLE_BRAND_JSON);
    expect(brandView({ format: 'markdown', sections: [...BRAND_SECTIONS].reverse() })).toEqual(
      brandView({ format: 'markdown' }),
    );
    expect(key({ format: 'dtcg', sections: ['fonts', 'colors'] })).toBe(key({ format: 'dtcg' }));
    expect(key({ format: 'markdown', sections: [...BRAND_SECTIONS], knowledge_kinds: ['fact'] })).toBe(
      key({ format: 'markdown', knowledge_kinds: ['fact'] }),
    );
  });

  it('gives a design-token file its colors and fonts when no section is asked', () => {
    expect(brandView({ format: 'dtcg' }).sections).toEqual(['colors', 'fonts']);
    expect(brandView({ format: 'dtcg', sections: ['fonts'] }).sections).toEqual(['fonts']);
  });

  it('leaves the rules out of a design-token file: they are not design tokens', () => {
    expect(brandView({ format: 'dtcg', sections: ['rules', 'colors'] }).sections).toEqual(['colors']);
    const tokens = renderBrandView(demo, brandView({ format: 'dtcg', sections: ['rules'] })).text;
    expect(Object.keys(JSON.parse(tokens) as object)).toEqual(['$description', '$extensions']);
  });
});

describe('viewKnowledge', () => {
  it('keeps the entries of the asked kinds, in the brand’s order', () => {
    expect(titles({ knowledge_kinds: ['reference'] })).toEqual([
      'Tasting notes glossary',
      'Roast levels',
      'Grind sizes',
      'Seasonal calendar',
    ]);
    expect(titles({ knowledge_kinds: ['reference', 'fact'] })).toHaveLength(12);
  });

  it('keeps the entries carrying any asked tag, whatever its case', () => {
    expect(titles({ knowledge_tags: ['VOICE', 'impact'] })).toEqual([
      'Certification',
      'Packaging',
      'Talk like a barista',
      'Never salesy',
    ]);
  });

  it('matches tags stored in capitals too', () => {
    const knowledge = demo.knowledge.slice(0, 1).map((entry) => ({ ...entry, tags: ['History '] }));
    expect(viewKnowledge(knowledge, brandView({ knowledge_tags: ['history'] }))).toEqual(knowledge);
  });

  it('keeps only the entries of an asked kind that carry an asked tag when both filters are sent', () => {
    expect(titles({ knowledge_kinds: ['fact'], knowledge_tags: ['product', 'style'] })).toEqual([
      'Freshness promise',
      'Subscriptions',
    ]);
    expect(titles({ knowledge_kinds: ['reference'], knowledge_tags: ['voice'] })).toEqual([]);
  });
});

describe('viewJson', () => {
  function keys(request: BrandViewRequest): string[] {
    return Object.keys(JSON.parse(viewJson(demo, brandView(request))) as object);
  }

  it('picks the asked sections in the documented order between the identifying fields', () => {
    expect(keys({ sections: ['knowledge', 'colors', 'name'] })).toEqual([
      'workspace_id',
      'name',
      'colors',
      'knowledge',
      'updated_at',
      'version',
    ]);
  });

  it('answers the rules section alone, last of the sections, with its ids', () => {
    expect(keys({ sections: ['rules', 'voice'] })).toEqual([
      'workspace_id',
      'voice',
      'rules',
      'updated_at',
      'version',
    ]);
    const { rules } = JSON.parse(viewJson(demo, brandView({ sections: ['rules'] }))) as typeof demo;
    expect(rules).toEqual(demo.rules);
    expect(rules.every((rule) => rule.id.startsWith('rl_'))).toBe(true);
  });

  it('always keeps workspace_id, updated_at and version', () => {
    const body = JSON.parse(viewJson(demo, brandView({ sections: ['voice'] }))) as Record<string, unknown>;
    expect(body).toEqual({
      workspace_id: demo.workspace_id,
      voice: demo.voice,
      updated_at: demo.updated_at,
      version: demo.version,
    });
  });

  it('filters the knowledge section as asked', () => {
    const body = JSON.parse(
      viewJson(
        demo,
        brandView({ sections: ['knowledge'], knowledge_kinds: ['guideline'], knowledge_tags: ['voice'] }),
      ),
    ) as { knowledge: { title: string }[] };
    expect(body.knowledge.map((entry) => entry.title)).toEqual(['Talk like a barista', 'Never salesy']);
  });

  it('answers every section asked by name with the same bytes as the whole brand', () => {
    expect(viewJson(demo, brandView({ sections: [...BRAND_SECTIONS].reverse() }))).toBe(
      serializeBrandContext(demo),
    );
  });
});

describe('renderBrandView', () => {
  it('serves each format with its content type', () => {
    expect(renderBrandView(demo, brandView({})).contentType).toBe('application/json; charset=utf-8');
    expect(renderBrandView(demo, brandView({ format: 'markdown' })).contentType).toBe(
      'text/markdown; charset=utf-8',
    );
    expect(renderBrandView(demo, brandView({ format: 'dtcg' })).contentType).toBe(
      'application/design-tokens+json; charset=utf-8',
    );
  });

  it('serves the whole brand as the brand context object', () => {
    expect(renderBrandView(demo, WHOLE_BRAND_JSON).text).toBe(serializeBrandContext(demo));
  });

  it('renders only the filtered knowledge as Markdown', () => {
    const { text } = renderBrandView(
      demo,
      brandView({ format: 'markdown', sections: ['knowledge'], knowledge_tags: ['impact'] }),
    );
    expect(text).toContain('- **Certification**:');
    expect(text).toContain('- **Packaging**:');
    expect(text).not.toContain('Founded');
    expect(text).not.toContain('### Guidelines');
  });
});
