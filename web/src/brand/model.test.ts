import { describe, expect, it } from 'vitest';
import { brandContextSchema } from '../../../src/contract/brand-context';
import { brandDocumentSchema } from '../../../src/core/brand-context';
import { type BrandForm, rowKey, sectionsThatDiffer, toDocument, toForm, validate } from './model';

const SAVED = brandContextSchema.parse({
  workspace_id: 'ws_1',
  name: 'Acme Coffee',
  description: 'Roasters',
  voice: 'Warm',
  colors: {
    primary: '#6B3E26',
    secondary: null,
    accent: null,
    background: '#FFFFFF',
    text: null,
    palette: [{ name: 'Crema', hex: '#F3E5AB', role: null }],
  },
  fonts: {
    heading: { family: 'Lora', weights: [400, 700], fallback: ['serif'], source: 'google', url: null },
    body: null,
  },
  social: { instagram: 'https://instagram.com/acme' },
  knowledge: [
    {
      id: 'kb_1',
      kind: 'fact',
      title: 'Founded',
      content: '1999',
      tags: ['history', 'about'],
      updated_at: '2025-01-01T00:00:00.000Z',
    },
  ],
  assets: [
    {
      id: 'as_1',
      kind: 'logo',
      name: 'Logo',
      url: 'https://example.com/logo.svg',
      mime_type: 'image/svg+xml',
      width: 120,
      height: null,
      bytes: null,
      variant: null,
      background: 'light',
      alt: 'Acme',
    },
  ],
  skills: [{ id: 'sk_1', name: 'Subject lines', description: '', instructions: 'Short.' }],
  preferences: { language: 'en', max_words: 120, emoji: false, banned: ['cheap', 'deal'], sign_off: null },
  rules: [
    { id: 'rl_1', kind: 'banned_term', value: 'cheap', message: '', severity: 'error' },
    {
      id: 'rl_2',
      kind: 'preferred_term',
      value: { use: 'coffee lovers', instead_of: ['customers', 'users'] },
      message: 'We talk to people.',
      severity: 'warning',
    },
    { id: 'rl_3', kind: 'max_emoji', value: 1, message: '', severity: 'error' },
    { id: 'rl_4', kind: 'palette_only', value: null, message: '', severity: 'warning' },
  ],
  updated_at: '2025-01-02T00:00:00.000Z',
  version: 3,
});

/** A form with one edit made to it, as a user typing would. */
function edited(change: (form: BrandForm) => void): BrandForm {
  const form = toForm(SAVED);
  change(form);
  return form;
}

describe('rules', () => {
  it('shows each kind in its own fields and sends back the same rules', () => {
    const form = toForm(SAVED);
    expect(form.rules.map(({ kind, value, insteadOf }) => [kind, value, insteadOf])).toEqual([
      ['banned_term', 'cheap', ''],
      ['preferred_term', 'coffee lovers', 'customers\nusers'],
      ['max_emoji', '1', ''],
      ['palette_only', '', ''],
    ]);
    expect(toDocument(form).rules).toEqual(SAVED.rules);
  });

  it('sends a new rule without an id, and a count that is no number as typed', () => {
    const document = toDocument(
      edited((form) => {
        form.rules.push({
          key: 'n',
          id: undefined,
          kind: 'max_exclamations',
          severity: 'error',
          value: 'two',
          insteadOf: '',
          message: '',
        });
      }),
    );
    expect(document.rules[4]).toEqual({
      kind: 'max_exclamations',
      value: 'two',
      message: '',
      severity: 'error',
    });
    expect(
      validate(
        edited((form) => {
          form.rules.push({
            key: 'n',
            id: undefined,
            kind: 'max_emoji',
            severity: 'error',
            value: '-1',
            insteadOf: '',
            message: '',
          });
        }),
      ).get('rules[4].value'),
    ).toBe('Use a whole number, 0 or more.');
  });
});

describe('toForm', () => {
  it('shows every value as the text its input holds: empty for null, lists joined', () => {
    const form = toForm(SAVED);
    expect(form.colors).toEqual({
      primary: '#6B3E26',
      secondary: '',
      accent: '',
      background: '#FFFFFF',
      text: '',
    });
    expect(form.fonts.heading).toEqual({
      family: 'Lora',
      weights: '400, 700',
      fallback: 'serif',
      source: 'google',
      url: '',
    });
    expect(form.fonts.body).toEqual({ family: '', weights: '', fallback: '', source: 'system', url: '' });
    expect(form.knowledge[0]?.tags).toBe('history, about');
    expect(form.assets[0]).toMatchObject({ width: '120', height: '', mime_type: 'image/svg+xml' });
  });

  it('gives each preference the type of its value, a list one item per line', () => {
    expect(toForm(SAVED).preferences.map(({ name, type, value }) => [name, type, value])).toEqual([
      ['language', 'text', 'en'],
      ['max_words', 'number', '120'],
      ['emoji', 'boolean', 'false'],
      ['banned', 'list', 'cheap\ndeal'],
      ['sign_off', 'none', ''],
    ]);
  });

  it('gives every list row its own React key', () => {
    const form = toForm(SAVED);
    const keys = [...form.palette, ...form.social, ...form.knowledge, ...form.assets, ...form.skills].map(
      (row) => row.key,
    );
    expect(new Set(keys).size).toBe(keys.length);
    expect(rowKey()).not.toBe(rowKey());
  });
});

describe('toDocument', () => {
  it('turns an untouched form back into the saved brand, which the service accepts as it is', () => {
    const document = toDocument(toForm(SAVED));
    const { workspace_id: _w, updated_at: _u, version: _v, ...brand } = SAVED;
    const { knowledge, ...rest } = brand;
    expect(document).toEqual({
      ...rest,
      knowledge: knowledge.map(({ updated_at: _at, ...entry }) => entry),
    });
    expect(brandDocumentSchema.safeParse(document).success).toBe(true);
  });

  it('trims names and addresses, upper-cases colors, and sends empty optional text as null', () => {
    const document = toDocument(
      edited((form) => {
        form.name = '  Acme  ';
        form.colors.accent = ' #aabbcc ';
        form.colors.primary = '   ';
        form.palette[0] = { key: 'p', name: 'Crema', hex: '#f3e5ab', role: ' ' };
        if (form.assets[0])
          form.assets[0] = { ...form.assets[0], url: ' https://example.com/a.png ', variant: '' };
      }),
    );
    expect(document.name).toBe('Acme');
    expect(document.colors).toMatchObject({ accent: '#AABBCC', primary: null });
    expect(document.colors.palette).toEqual([{ name: 'Crema', hex: '#F3E5AB', role: null }]);
    expect(document.assets[0]).toMatchObject({ url: 'https://example.com/a.png', variant: null });
  });

  it('leaves out a font, social row or preference row that holds nothing', () => {
    const document = toDocument(
      edited((form) => {
        form.fonts.heading = { family: ' ', weights: '', fallback: '', source: 'google', url: '' };
        form.social.push({ key: 's', network: '', url: ' ' });
        form.preferences.push({ key: 'r', name: '', type: 'text', value: '' });
      }),
    );
    expect(document.fonts.heading).toBeNull();
    expect(document.social).toEqual({ instagram: 'https://instagram.com/acme' });
    expect(Object.keys(document.preferences)).not.toContain('');
  });

  it('sends what is not a number as typed, so the service names the field', () => {
    const document = toDocument(
      edited((form) => {
        form.fonts.heading.weights = '400, bold';
        if (form.assets[0]) form.assets[0] = { ...form.assets[0], width: '12px', height: ' 40 ' };
        form.preferences.push({ key: 'n', name: 'ratio', type: 'number', value: 'half' });
      }),
    );
    expect(document.fonts.heading?.weights).toEqual([400, 'bold']);
    expect(document.assets[0]).toMatchObject({ width: '12px', height: 40 });
    expect(document.preferences['ratio']).toBe('half');
  });

  it('reads a boolean preference from its text and a list one item per non-empty line', () => {
    const document = toDocument(
      edited((form) => {
        form.preferences = [
          { key: 'a', name: 'emoji', type: 'boolean', value: 'true' },
          { key: 'b', name: 'banned', type: 'list', value: ' cheap \n\n deal ' },
          { key: 'c', name: 'sign_off', type: 'none', value: 'ignored' },
        ];
      }),
    );
    expect(document.preferences).toEqual({ emoji: true, banned: ['cheap', 'deal'], sign_off: null });
  });

  it('sends a new entry without an id, so that the service gives it one', () => {
    const document = toDocument(
      edited((form) => {
        form.skills.push({ key: 'k', id: undefined, name: 'New', description: '', instructions: '' });
      }),
    );
    expect(document.skills[1]).toEqual({ name: 'New', description: '', instructions: '' });
  });
});

describe('validate', () => {
  it('finds nothing wrong with a saved brand, nor with rows left empty', () => {
    expect(validate(toForm(SAVED)).size).toBe(0);
    const blankRows = edited((form) => {
      form.social.push({ key: 's', network: '', url: '' });
      form.preferences.push({ key: 'p', name: '', type: 'text', value: '' });
    });
    expect(validate(blankRows).size).toBe(0);
  });

  it('asks for #RRGGBB where a color is not one', () => {
    const issues = validate(
      edited((form) => {
        form.colors.accent = 'red';
        form.palette.push({ key: 'p', name: 'Bad', hex: '#12345', role: '' });
      }),
    );
    expect(issues.get('colors.accent')).toBe('Use #RRGGBB, e.g. #6B3E26.');
    expect(issues.get('colors.palette[1].hex')).toBe('Use #RRGGBB, e.g. #6B3E26.');
  });

  it('asks for a family and whole weights from 1 to 1000 in a font that is used', () => {
    const issues = validate(
      edited((form) => {
        form.fonts.heading = { ...form.fonts.heading, family: '', weights: '0, 400' };
        form.fonts.body.weights = '1001';
      }),
    );
    expect(issues.get('fonts.heading.family')).toBe('Name the font family, or clear this font.');
    expect(issues.get('fonts.heading.weights')).toBe(
      'Use whole numbers from 1 to 1000, separated by commas.',
    );
    expect(issues.get('fonts.body.weights')).toBe('Use whole numbers from 1 to 1000, separated by commas.');
  });

  it('tells an address that is not https from one that is no address at all', () => {
    const issues = validate(
      edited((form) => {
        form.fonts.heading.url = 'http://fonts.example.com/lora.css';
        if (form.assets[0]) form.assets[0] = { ...form.assets[0], url: 'logo.svg' };
      }),
    );
    expect(issues.get('fonts.heading.url')).toBe('Use an https:// address.');
    expect(issues.get('assets[0].url')).toBe('Use a full address, e.g. https://example.com/logo.svg.');
  });

  it('names a social network that is not a lowercase name, or is listed twice', () => {
    const issues = validate(
      edited((form) => {
        form.social.push(
          { key: 'a', network: 'Instagram', url: 'https://instagram.com/x' },
          { key: 'b', network: 'instagram', url: 'ftp://instagram.com/y' },
        );
      }),
    );
    expect(issues.get('social[1].network')).toBe('Use lowercase letters, digits, - or _, e.g. instagram.');
    expect(issues.get('social[2].network')).toBe('This network is listed twice.');
    expect(issues.get('social.instagram')).toBe('Use an https:// address.');
  });

  it('asks for whole numbers as asset sizes', () => {
    const issues = validate(
      edited((form) => {
        if (form.assets[0]) form.assets[0] = { ...form.assets[0], width: '1.5', bytes: '-3', height: ' 40 ' };
      }),
    );
    expect(issues.get('assets[0].width')).toBe('Use a whole number, or leave it empty.');
    expect(issues.get('assets[0].bytes')).toBe('Use a whole number, or leave it empty.');
    expect(issues.has('assets[0].height')).toBe(false);
  });

  it('names a preference whose name is no identifier, is listed twice, or whose number is none', () => {
    const issues = validate(
      edited((form) => {
        form.preferences.push(
          { key: 'a', name: '1st', type: 'text', value: 'x' },
          { key: 'b', name: 'language', type: 'text', value: 'de' },
          { key: 'c', name: 'ratio', type: 'number', value: 'half' },
        );
      }),
    );
    expect(issues.get('preferences[5].name')).toBe('Start with a letter; then letters, digits, _ . or -.');
    expect(issues.get('preferences[6].name')).toBe('This preference is listed twice.');
    expect(issues.get('preferences.ratio')).toBe('Use a number.');
  });
});

describe('sectionsThatDiffer', () => {
  it('names no section for the same brand, however its entries were loaded', () => {
    expect(sectionsThatDiffer(toDocument(toForm(SAVED)), toDocument(toForm(SAVED)))).toEqual([]);
  });

  it('names each section with a difference once, in the order of the editor', () => {
    const mine = toDocument(
      edited((form) => {
        form.description = 'Mine';
        form.name = 'Mine too';
        form.preferences = [];
      }),
    );
    const theirs = toDocument(
      edited((form) => {
        form.voice = 'Theirs';
        form.palette = [];
      }),
    );
    expect(sectionsThatDiffer(mine, theirs)).toEqual(['basics', 'voice', 'colors', 'preferences']);
  });
});
