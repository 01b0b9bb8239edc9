import { describe, expect, it } from 'vitest';
import { type BrandContext, emptyBrand } from './brand-context.js';
import { diffBrandSections, draftEtag } from './brand-versions.js';

type Content = Omit<BrandContext, 'workspace_id' | 'updated_at' | 'version'>;

const entry = (id: string, title: string, content = `${title}.`) => ({
  id,
  kind: 'fact' as const,
  title,
  content,
  tags: ['history'],
  updated_at: '2026-01-01T00:00:00.000Z',
});

function brand(change: (content: Content) => void = () => undefined): Content {
  const content: Content = {
    name: 'Acme Coffee',
    ...emptyBrand(),
    colors: { ...emptyBrand().colors, primary: '#6B3E26' },
    knowledge: [entry('kb_1', 'Founded'), entry('kb_2', 'Roastery'), entry('kb_3', 'Sourcing')],
    preferences: { emoji: false },
  };
  change(content);
  return content;
}

describe('diffBrandSections', () => {
  it('finds nothing between identical brands', () => {
    expect(diffBrandSections(brand(), brand())).toEqual([]);
  });

  it('lists only the changed sections, in the documented order, with pointers from the brand root', () => {
    const after = brand((content) => {
      content.preferences = { emoji: true, sign_off: 'The Acme crew' };
      content.colors.primary = '#000000';
      content.name = 'Acme Roasters';
    });

    expect(diffBrandSections(brand(), after)).toEqual([
      {
        section: 'name',
        changes: [{ op: 'replace', path: '/name', before: 'Acme Coffee', after: 'Acme Roasters' }],
      },
      {
        section: 'colors',
        changes: [{ op: 'replace', path: '/colors/primary', before: '#6B3E26', after: '#000000' }],
      },
      {
        section: 'preferences',
        changes: [
          { op: 'replace', path: '/preferences/emoji', before: false, after: true },
          { op: 'add', path: '/preferences/sign_off', after: 'The Acme crew' },
        ],
      },
    ]);
  });

  it('matches list entries by id: an edit is a change inside the entry, not a removal and an addition', () => {
    const after = brand((content) => {
      const second = content.knowledge[1];
      if (second) content.knowledge[1] = { ...second, content: 'A restored 1968 Probat.' };
    });

    expect(diffBrandSections(brand(), after)).toEqual([
      {
        section: 'knowledge',
        changes: [
          {
            op: 'replace',
            path: '/knowledge/1/content',
            before: 'Roastery.',
            after: 'A restored 1968 Probat.',
          },
        ],
      },
    ]);
  });

  it('diffs rules like the other lists, by id, after every other section', () => {
    const banned = (id: string, value: string) =>
      ({ id, kind: 'banned_term', value, message: '', severity: 'error' }) as const;
    const before = brand((content) => {
      content.rules = [banned('rl_1', 'synergy'), banned('rl_2', 'hurry')];
    });
    const after = brand((content) => {
      content.preferences = { emoji: true };
      content.rules = [{ ...banned('rl_2', 'hurry'), severity: 'warning' }];
    });

    expect(diffBrandSections(before, after)).toEqual([
      {
        section: 'preferences',
        changes: [{ op: 'replace', path: '/preferences/emoji', before: false, after: true }],
      },
      {
        section: 'rules',
        changes: [
          { op: 'remove', path: '/rules/0', before: banned('rl_1', 'synergy') },
          { op: 'replace', path: '/rules/0/severity', before: 'error', after: 'warning' },
        ],
      },
    ]);
  });

  it('names a removed entry by its place in the older version and an added one by its place in the newer', () => {
    const after = brand((content) => {
      content.knowledge = [entry('kb_1', 'Founded'), entry('kb_3', 'Sourcing'), entry('kb_4', 'Cafés')];
    });

    expect(diffBrandSections(brand(), after)).toEqual([
      {
        section: 'knowledge',
        changes: [
          { op: 'remove', path: '/knowledge/1', before: entry('kb_2', 'Roastery') },
          { op: 'add', path: '/knowledge/2', after: entry('kb_4', 'Cafés') },
        ],
      },
    ]);
  });

  it('reports a reordered entry as a move from its old place to its new one', () => {
    const after = brand((content) => {
      content.knowledge = [entry('kb_3', 'Sourcing'), entry('kb_1', 'Founded'), entry('kb_2', 'Roastery')];
    });

    const [knowledge] = diffBrandSections(brand(), after);
    expect(knowledge?.section).toBe('knowledge');
    expect(knowledge?.changes).toEqual([{ op: 'move', from: '/knowledge/2', path: '/knowledge/0' }]);
  });

  it('compares entries without an id (palette swatches) and plain values (tags) by content', () => {
    const before = brand((content) => {
      content.colors.palette = [{ name: 'Crema', hex: '#F3E5D0', role: null }];
    });
    const after = brand((content) => {
      content.colors.palette = [{ name: 'Crema', hex: '#F3E5D1', role: null }];
      const first = content.knowledge[0];
      if (first) content.knowledge[0] = { ...first, tags: ['history', 'portland'] };
    });

    expect(diffBrandSections(before, after)).toEqual([
      {
        section: 'colors',
        changes: [
          { op: 'remove', path: '/colors/palette/0', before: { name: 'Crema', hex: '#F3E5D0', role: null } },
          { op: 'add', path: '/colors/palette/0', after: { name: 'Crema', hex: '#F3E5D1', role: null } },
        ],
      },
      { section: 'knowledge', changes: [{ op: 'add', path: '/knowledge/0/tags/1', after: 'portland' }] },
    ]);
  });

  it('escapes ~ and / in names as JSON Pointer tokens', () => {
    const before = { ...brand(), social: {} };
    const after = { ...brand(), social: { 'a/b~c': 'https://example.com/' } };
    expect(diffBrandSections(before, after)[0]?.changes).toEqual([
      { op: 'add', path: '/social/a~1b~0c', after: 'https://example.com/' },
    ]);
  });

  it('leaves its inputs as they were', () => {
    const before = brand();
    const after = brand((content) => {
      content.knowledge.reverse();
      content.voice = 'Plain.';
    });
    const [beforeCopy, afterCopy] = [structuredClone(before), structuredClone(after)];
    diffBrandSections(before, after);
    expect([before, after]).toEqual([beforeCopy, afterCopy]);
  });
});

describe('draftEtag', () => {
  it('never looks like the ETag of a published version', () => {
    expect(draftEtag(3)).toBe('"draft-3"');
  });
});
