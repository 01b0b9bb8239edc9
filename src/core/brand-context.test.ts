import { describe, expect, it } from 'vitest';
import { DEMO_BRAND } from '../services/demo/demo-brand.js';
import {
  BRAND_SECTIONS,
  type BrandContext,
  brandContextObjectSchema,
  type BrandDocument,
  emptyBrand,
  parseBrandDocument,
  serializeBrandContext,
  settleBrandDocument,
} from './brand-context.js';
import { AppError, type FieldIssue } from './errors.js';
import { formatFieldPath } from './inputs.js';
import { BRAND_CONTEXT_KEY_ORDER, EMPTY_BRAND_SECTIONS } from '#test/support/fixtures/brand-agent.js';

function parsed(input: unknown): BrandDocument {
  return parseBrandDocument(input);
}

function issues(input: unknown): readonly FieldIssue[] {
  try {
    parseBrandDocument(input);
  } catch (error) {
    if (error instanceof AppError) return error.fields;
    throw error;
  }
  throw new Error('expected the document to be refused');
}

function fields(input: unknown): string[] {
  return issues(input).map((issue) => issue.field);
}

function idsFrom(): (prefix: 'kb' | 'as' | 'sk' | 'rl') => string {
  let next = 0;
  return (prefix) => `${prefix}_new${String(++next)}`;
}

const fact = { kind: 'fact', title: 'Founded', content: 'In 2012.' } as const;
const logo = { kind: 'logo', name: 'Logo', url: 'https://cdn.example.com/logo.svg' } as const;

describe('parseBrandDocument', () => {
  it('accepts the complete demo brand', () => {
    const document = parsed(DEMO_BRAND);
    expect(document.name).toBe('Acme Coffee');
    expect(document.knowledge).toHaveLength(20);
    expect(document.assets).toHaveLength(3);
    expect(document.skills).toHaveLength(3);
    expect(document.rules.map((rule) => rule.kind)).toContain('palette_only');
    expect(document.social.instagram).toBe('https://instagram.com/acmecoffee.example');
  });

  it('fills every missing field with its empty value', () => {
    expect(parsed({ name: 'X' })).toEqual({ name: 'X', ...EMPTY_BRAND_SECTIONS });
  });

  it('fills the optional fields of entries with their empty values', () => {
    const document = parsed({
      name: 'X',
      knowledge: [fact],
      assets: [logo],
      skills: [{ name: 'Subject lines' }],
    });
    expect(document.knowledge[0]).toEqual({ ...fact, tags: [] });
    expect(document.assets[0]).toEqual({
      ...logo,
      mime_type: null,
      width: null,
      height: null,
      bytes: null,
      variant: null,
      background: null,
      alt: '',
    });
    expect(document.skills[0]).toEqual({ name: 'Subject lines', description: '', instructions: '' });
  });

  it('normalizes colors to uppercase #RRGGBB', () => {
    const document = parsed({
      name: 'X',
      colors: { primary: '#6b3e26', accent: '#d9822B', palette: [{ name: 'Copper', hex: '#abcdef' }] },
    });
    expect(document.colors.primary).toBe('#6B3E26');
    expect(document.colors.accent).toBe('#D9822B');
    expect(document.colors.secondary).toBeNull();
    expect(document.colors.palette).toEqual([{ name: 'Copper', hex: '#ABCDEF', role: null }]);
  });

  it.each(['red', '#FFF', '#GGGGGG', '6B3E26', '#6B3E2600'])(
    'rejects the color %s that is not #RRGGBB, naming the field',
    (color) => {
      expect(issues({ name: 'X', colors: { primary: color } })).toEqual([
        { field: 'colors.primary', message: 'must be a #RRGGBB color' },
      ]);
    },
  );

  it('rejects a palette color that is not #RRGGBB, naming its entry', () => {
    expect(
      fields({
        name: 'X',
        colors: {
          palette: [
            { name: 'A', hex: '#000000' },
            { name: 'B', hex: 'blue' },
          ],
        },
      }),
    ).toEqual(['colors.palette[1].hex']);
  });

  it.each([
    'http://instagram.com/acme',
    'ftp://instagram.com/acme',
    'instagram.com/acme',
    '/acme',
    'javascript:alert(1)',
  ])('rejects the social URL %s that is not an absolute https URL, naming the network', (url) => {
    expect(issues({ name: 'X', social: { instagram: url } })).toEqual([
      { field: 'social.instagram', message: 'must be an absolute https URL' },
    ]);
  });

  it('rejects a social network name that is not lowercase, naming it and saying why', () => {
    expect(issues({ name: 'X', social: { Instagram: 'https://instagram.com/acme' } })).toEqual([
      { field: 'social.Instagram', message: 'network names are lowercase, e.g. "instagram"' },
    ]);
  });

  it('rejects a preference name that is not an identifier, naming it and saying why', () => {
    expect(issues({ name: 'X', preferences: { '1st choice': 'tea' } })).toEqual([
      { field: 'preferences.1st choice', message: 'preference names are identifiers' },
    ]);
  });

  it('rejects an asset URL that is not https, naming the asset', () => {
    expect(issues({ name: 'X', assets: [{ ...logo, url: 'http://cdn.example.com/logo.svg' }] })).toEqual([
      { field: 'assets[0].url', message: 'must be an absolute https URL' },
    ]);
  });

  it('rejects a font URL that is not https, naming the font', () => {
    const fonts = { body: { family: 'Inter', url: 'http://fonts.example.com/inter.css' } };
    expect(fields({ name: 'X', fonts })).toEqual(['fonts.body.url']);
  });

  it('rejects an unknown knowledge kind, naming the entry', () => {
    expect(fields({ name: 'X', knowledge: [fact, { ...fact, kind: 'rumour' }] })).toEqual([
      'knowledge[1].kind',
    ]);
  });

  it('rejects an unknown asset kind, naming the asset', () => {
    expect(fields({ name: 'X', assets: [{ ...logo, kind: 'video' }] })).toEqual(['assets[0].kind']);
  });

  it('accepts every kind of rule, filling message and severity, its keys in the documented order', () => {
    const document = parsed({
      name: 'X',
      rules: [
        { kind: 'banned_term', value: ' synergy ' },
        { kind: 'preferred_term', value: { use: 'you', instead_of: ['guys', 'folks'] }, severity: 'warning' },
        { kind: 'required_phrase', value: 'The Acme crew', message: 'Sign off.' },
        { kind: 'max_exclamations', value: 1 },
        { kind: 'max_emoji', value: 0 },
        { severity: 'warning', kind: 'palette_only' },
        { kind: 'fonts_only', value: null, id: 'rl_fonts' },
      ],
    });
    expect(document.rules).toEqual([
      { kind: 'banned_term', value: 'synergy', message: '', severity: 'error' },
      {
        kind: 'preferred_term',
        value: { use: 'you', instead_of: ['guys', 'folks'] },
        message: '',
        severity: 'warning',
      },
      { kind: 'required_phrase', value: 'The Acme crew', message: 'Sign off.', severity: 'error' },
      { kind: 'max_exclamations', value: 1, message: '', severity: 'error' },
      { kind: 'max_emoji', value: 0, message: '', severity: 'error' },
      { kind: 'palette_only', value: null, message: '', severity: 'warning' },
      { id: 'rl_fonts', kind: 'fonts_only', value: null, message: '', severity: 'error' },
    ]);
    expect(document.rules.map((rule) => Object.keys(rule))).toContainEqual([
      'id',
      'kind',
      'value',
      'message',
      'severity',
    ]);
    expect(Object.keys(document.rules[5] ?? {})).toEqual(['kind', 'value', 'message', 'severity']);
  });

  it.each([
    ['an unknown kind', { kind: 'shouting', value: 'x' }, 'rules[0].kind', 'must be one of "banned_term", '],
    ['a blank term', { kind: 'banned_term', value: '  ' }, 'rules[0].value', 'must not be empty'],
    [
      'a term of two lines',
      { kind: 'banned_term', value: 'a\nb' },
      'rules[0].value',
      'must be a single line',
    ],
    [
      'a preferred term replacing nothing',
      { kind: 'preferred_term', value: { use: 'you', instead_of: [] } },
      'rules[0].value.instead_of',
      'must be at least 1 item',
    ],
    ['a negative limit', { kind: 'max_emoji', value: -1 }, 'rules[0].value', 'must be at least 0'],
    [
      'a fractional limit',
      { kind: 'max_exclamations', value: 1.5 },
      'rules[0].value',
      'must be a whole number',
    ],
    ['a value where none is taken', { kind: 'palette_only', value: 'red' }, 'rules[0].value', 'must be null'],
    ['an unknown severity', { kind: 'fonts_only', severity: 'info' }, 'rules[0].severity', 'must be one of'],
    [
      'an unknown field',
      { kind: 'banned_term', value: 'x', extra: 1 },
      'rules[0].extra',
      'is not a known field',
    ],
    [
      'an id of another list',
      { kind: 'banned_term', value: 'x', id: 'kb_1' },
      'rules[0].id',
      'must look like rl_',
    ],
  ])('rejects a rule with %s, naming the field', (_what, rule, field, message) => {
    const found = issues({ name: 'X', rules: [rule] });
    expect(found.map((issue) => issue.field)).toEqual([field]);
    expect(found[0]?.message).toContain(message);
  });

  it('rejects duplicate rule ids, naming the second rule', () => {
    const rules = [
      { kind: 'banned_term', value: 'a', id: 'rl_1' },
      { kind: 'banned_term', value: 'b', id: 'rl_1' },
    ];
    expect(issues({ name: 'X', rules })).toEqual([{ field: 'rules[1].id', message: 'duplicate id rl_1' }]);
  });

  it('rejects an unknown top-level field, naming it', () => {
    expect(issues({ name: 'X', colour: { primary: '#000000' } })).toEqual([
      { field: 'colour', message: 'is not a known field' },
    ]);
  });

  it('rejects unknown nested fields, naming each of them', () => {
    expect(
      fields({
        name: 'X',
        colors: { tint: '#000000' },
        knowledge: [{ ...fact, author: 'Ann' }],
        assets: [{ ...logo, size: 10 }],
      }),
    ).toEqual(['colors.tint', 'knowledge[0].author', 'assets[0].size']);
  });

  it('rejects duplicate knowledge ids, naming the second entry', () => {
    const knowledge = [
      { ...fact, id: 'kb_1' },
      { ...fact, id: 'kb_2' },
      { ...fact, id: 'kb_1' },
    ];
    expect(issues({ name: 'X', knowledge })).toEqual([
      { field: 'knowledge[2].id', message: 'duplicate id kb_1' },
    ]);
  });

  it('rejects duplicate asset and skill ids', () => {
    const assets = [
      { ...logo, id: 'as_1' },
      { ...logo, id: 'as_1' },
    ];
    const skills = [
      { name: 'A', id: 'sk_a' },
      { name: 'B', id: 'sk_a' },
    ];
    expect(fields({ name: 'X', assets, skills })).toEqual(['assets[1].id', 'skills[1].id']);
  });

  it.each([
    ['knowledge', { ...fact, id: 'as_1' }, 'knowledge[1].id'],
    ['knowledge', { ...fact, id: 'kb-1' }, 'knowledge[1].id'],
    ['knowledge', { ...fact, id: 'kb_' }, 'knowledge[1].id'],
    ['knowledge', { ...fact, id: `kb_${'a'.repeat(41)}` }, 'knowledge[1].id'],
    ['assets', { ...logo, id: 'kb_1' }, 'assets[1].id'],
    ['skills', { name: 'S', id: 'sk_not ok' }, 'skills[1].id'],
  ] as const)('rejects a %s entry with the id %j, naming the field', (list, entry, field) => {
    const valid = { knowledge: { ...fact }, assets: { ...logo }, skills: { name: 'S' } }[list];
    expect(issues({ name: 'X', [list]: [valid, entry] })).toEqual([
      {
        field,
        message: expect.stringMatching(
          /^must look like (kb|as|sk)_ followed by letters and digits$/,
        ) as unknown,
      },
    ]);
  });

  it('rejects over-long strings, naming the field', () => {
    expect(fields({ name: 'x'.repeat(201) })).toEqual(['name']);
    expect(fields({ name: 'X', description: 'x'.repeat(5001) })).toEqual(['description']);
    expect(fields({ name: 'X', knowledge: [{ ...fact, title: 'x'.repeat(301) }] })).toEqual([
      'knowledge[0].title',
    ]);
    expect(fields({ name: 'X', knowledge: [{ ...fact, tags: ['x'.repeat(51)] }] })).toEqual([
      'knowledge[0].tags[0]',
    ]);
  });

  it('accepts strings at their maximum length', () => {
    expect(parsed({ name: 'x'.repeat(200), description: 'x'.repeat(5000) }).description).toHaveLength(5000);
  });

  it('rejects a missing or blank name', () => {
    expect(fields({})).toEqual(['name']);
    expect(fields({ name: '   ' })).toEqual(['name']);
  });

  it('trims the name', () => {
    expect(parsed({ name: '  Acme Coffee ' }).name).toBe('Acme Coffee');
  });

  it('refuses a document that is not an object, naming the document itself', () => {
    expect(fields(['Acme'])).toEqual(['']);
    expect(fields(null)).toEqual(['']);
  });

  it('reports several errors at once', () => {
    expect(
      fields({
        name: '',
        colors: { primary: 'red', text: '#12345' },
        social: { instagram: 'http://instagram.com/acme' },
        knowledge: [{ ...fact, kind: 'rumour' }],
        assets: [{ ...logo, url: 'http://cdn.example.com/logo.svg' }],
        colour: 'red',
      }),
    ).toEqual([
      'name',
      'colors.primary',
      'colors.text',
      'social.instagram',
      'knowledge[0].kind',
      'assets[0].url',
      'colour',
    ]);
  });

  it('accepts an exported brand context and drops its server-set fields', () => {
    const exported = {
      workspace_id: 'ws_abc',
      ...DEMO_BRAND,
      knowledge: [{ ...fact, id: 'kb_1', tags: [], updated_at: '2024-05-01T10:00:00.000Z' }],
      updated_at: '2024-05-01T10:00:00.000Z',
      version: 7,
    };
    const document = parsed(exported);
    expect(document).not.toHaveProperty('workspace_id');
    expect(document).not.toHaveProperty('updated_at');
    expect(document).not.toHaveProperty('version');
    expect(document.name).toBe('Acme Coffee');
    expect(document.knowledge).toEqual([
      { ...fact, id: 'kb_1', tags: [], updated_at: '2024-05-01T10:00:00.000Z' },
    ]);
  });

  it('rejects a knowledge updated_at that is not an ISO timestamp', () => {
    expect(fields({ name: 'X', knowledge: [{ ...fact, updated_at: 'yesterday' }] })).toEqual([
      'knowledge[0].updated_at',
    ]);
  });
});

describe('serializeBrandContext', () => {
  const settled = () =>
    settleBrandDocument(parsed(DEMO_BRAND), undefined, '2024-05-01T10:00:00.000Z', idsFrom());

  function context(): BrandContext {
    return {
      ...settled(),
      workspace_id: 'ws_abc',
      updated_at: '2024-05-01T10:00:00.000Z',
      version: 3,
    };
  }

  it('emits the keys in the documented order', () => {
    expect(Object.keys(JSON.parse(serializeBrandContext(context())) as object)).toEqual(
      BRAND_CONTEXT_KEY_ORDER,
    );
  });

  it('emits the same bytes whatever order the input object had', () => {
    const forward = context();
    const reversed = Object.fromEntries(Object.entries(forward).reverse()) as unknown as BrandContext;
    expect(Object.keys(reversed)[0]).toBe('version');
    expect(serializeBrandContext(reversed)).toBe(serializeBrandContext(forward));
    expect(Object.keys(JSON.parse(serializeBrandContext(reversed)) as object)).toEqual(
      BRAND_CONTEXT_KEY_ORDER,
    );
  });

  it('round-trips through parseBrandDocument', () => {
    const exported: unknown = JSON.parse(serializeBrandContext(context()));
    expect(parsed(exported)).toEqual(settled());
  });
});

describe('BRAND_SECTIONS', () => {
  it('names every section of the brand context object, in its documented order', () => {
    expect(Object.keys(brandContextObjectSchema.shape)).toEqual([
      'workspace_id',
      ...BRAND_SECTIONS,
      'updated_at',
      'version',
    ]);
  });
});

describe('emptyBrand', () => {
  it('has every field present and empty', () => {
    expect(emptyBrand()).toEqual(EMPTY_BRAND_SECTIONS);
  });
});

describe('settleBrandDocument', () => {
  const NOW = '2025-01-02T03:04:05.000Z';
  const EARLIER = '2024-06-01T00:00:00.000Z';

  it('gives entries without an id a new id with the right prefix and keeps given ids', () => {
    const document = parsed({
      name: 'X',
      knowledge: [fact, { ...fact, id: 'kb_given' }],
      assets: [logo, { ...logo, id: 'as_given' }],
      skills: [{ name: 'A' }, { name: 'B', id: 'sk_given' }],
      rules: [
        { kind: 'max_emoji', value: 1 },
        { kind: 'palette_only', id: 'rl_given' },
      ],
    });
    const settled = settleBrandDocument(document, undefined, NOW, idsFrom());
    expect(settled.rules.map((rule) => rule.id)).toEqual([expect.stringMatching(/^rl_/), 'rl_given']);
    expect(Object.keys(settled.rules[0] ?? {})).toEqual(['id', 'kind', 'value', 'message', 'severity']);
    expect(settled.knowledge.map((entry) => entry.id)).toEqual([expect.stringMatching(/^kb_/), 'kb_given']);
    expect(settled.assets.map((asset) => asset.id)).toEqual([expect.stringMatching(/^as_/), 'as_given']);
    expect(settled.skills.map((skill) => skill.id)).toEqual([expect.stringMatching(/^sk_/), 'sk_given']);
    expect(new Set([settled.knowledge[0]?.id, settled.assets[0]?.id, settled.skills[0]?.id]).size).toBe(3);
  });

  it('keeps the rest of the document as it is', () => {
    const document = parsed(DEMO_BRAND);
    const settled = settleBrandDocument(document, undefined, NOW, idsFrom());
    expect(settled.name).toBe(document.name);
    expect(settled.colors).toEqual(document.colors);
    expect(settled.preferences).toEqual(document.preferences);
    expect(settled.assets.map(({ id: _id, ...asset }) => asset)).toEqual(document.assets);
  });

  it('dates a new knowledge entry now', () => {
    const settled = settleBrandDocument(parsed({ name: 'X', knowledge: [fact] }), undefined, NOW, idsFrom());
    expect(settled.knowledge[0]?.updated_at).toBe(NOW);
  });

  it('keeps a supplied knowledge updated_at', () => {
    const document = parsed({ name: 'X', knowledge: [{ ...fact, id: 'kb_1', updated_at: EARLIER }] });
    const previous = {
      assets: [],
      skills: [],
      rules: [],
      knowledge: [{ ...fact, id: 'kb_1', tags: [], updated_at: '2023-01-01T00:00:00.000Z' }],
    };
    expect(settleBrandDocument(document, previous, NOW, idsFrom()).knowledge[0]?.updated_at).toBe(EARLIER);
    expect(settleBrandDocument(document, undefined, NOW, idsFrom()).knowledge[0]?.updated_at).toBe(EARLIER);
  });

  it('keeps the previous updated_at of an unchanged knowledge entry', () => {
    const previous = {
      assets: [],
      skills: [],
      rules: [],
      knowledge: [{ ...fact, id: 'kb_1', tags: ['history'], updated_at: EARLIER }],
    };
    const document = parsed({ name: 'X', knowledge: [{ ...fact, id: 'kb_1', tags: ['history'] }] });
    expect(settleBrandDocument(document, previous, NOW, idsFrom()).knowledge[0]?.updated_at).toBe(EARLIER);
  });

  it.each([
    ['kind', { kind: 'guideline' }],
    ['title', { title: 'Founded in Portland' }],
    ['content', { content: 'In 2013.' }],
    ['tags', { tags: ['history', 'portland'] }],
    ['tag order', { tags: ['b', 'a'] }],
  ])('dates a knowledge entry whose %s was edited now', (_what, edit) => {
    const previous = {
      assets: [],
      skills: [],
      rules: [],
      knowledge: [{ ...fact, id: 'kb_1', tags: ['a', 'b'], updated_at: EARLIER }],
    };
    const document = parsed({ name: 'X', knowledge: [{ ...fact, tags: ['a', 'b'], id: 'kb_1', ...edit }] });
    expect(settleBrandDocument(document, previous, NOW, idsFrom()).knowledge[0]?.updated_at).toBe(NOW);
  });

  it('dates an identical entry under another id now, and lets an id-less twin take the previous id and date', () => {
    const previous = {
      assets: [],
      skills: [],
      rules: [],
      knowledge: [{ ...fact, id: 'kb_1', tags: [], updated_at: EARLIER }],
    };
    const document = parsed({ name: 'X', knowledge: [{ ...fact, id: 'kb_2' }, fact] });
    const settled = settleBrandDocument(document, previous, NOW, idsFrom());
    expect(settled.knowledge.map((entry) => [entry.id, entry.updated_at])).toEqual([
      ['kb_2', NOW],
      ['kb_1', EARLIER],
    ]);
  });

  it('gives entries sent again without ids the ids they already have, so a repeated document changes nothing', () => {
    const document = parsed({
      name: 'X',
      knowledge: [fact, { ...fact, title: 'Other' }],
      assets: [{ kind: 'logo', name: 'Logo', url: 'https://example.com/l.svg' }],
      skills: [{ name: 'Skill' }],
      rules: [{ kind: 'banned_term', value: 'hurry' }, { kind: 'fonts_only' }],
    });
    const first = settleBrandDocument(document, undefined, EARLIER, idsFrom());
    const again = settleBrandDocument(document, first, NOW, idsFrom());
    expect(again).toEqual(first);
  });
});

describe('formatFieldPath', () => {
  it('joins names with dots and puts indexes in brackets', () => {
    expect(formatFieldPath(['knowledge', 2, 'kind'])).toBe('knowledge[2].kind');
    expect(formatFieldPath(['colors', 'palette', 0, 'hex'])).toBe('colors.palette[0].hex');
    expect(formatFieldPath(['social', 'instagram'])).toBe('social.instagram');
  });

  it('formats the empty path as the empty string', () => {
    expect(formatFieldPath([])).toBe('');
  });
});
