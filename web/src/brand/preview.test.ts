import { describe, expect, it } from 'vitest';
import { brandContextSchema } from '../../../src/contract/brand-context';
import { serializeBrandContext } from '../../../src/core/brand-context';
import { type BrandForm, toDocument, toForm } from './model';
import { accept, previewFormats } from './preview';

const SAVED = brandContextSchema.parse({
  workspace_id: 'ws_1',
  name: 'Acme Coffee',
  description: '',
  voice: '',
  colors: { primary: '#6B3E26', secondary: null, accent: null, background: null, text: null, palette: [] },
  fonts: { heading: null, body: null },
  social: {},
  knowledge: [
    {
      id: 'kb_1',
      kind: 'fact',
      title: 'Founded',
      content: '1999',
      tags: [],
      updated_at: '2025-01-01T00:00:00.000Z',
    },
  ],
  assets: [],
  skills: [],
  preferences: {},
  rules: [],
  updated_at: '2025-01-02T00:00:00.000Z',
  version: 3,
});

/** The brand the service would store from `form`; the test fails if it would refuse it. */
function accepted(form: BrandForm) {
  const acceptance = accept(toDocument(form));
  if (!('accepted' in acceptance)) throw new Error(JSON.stringify(acceptance.refused));
  return acceptance.accepted;
}

/** Each format's preview as shown, by format. */
function previews(form: BrandForm, changed: boolean): Record<string, string> {
  return Object.fromEntries(
    previewFormats(accepted(form), SAVED, changed).map((preview) => [preview.format, preview.shown]),
  );
}

function previewJson(form: BrandForm, changed: boolean): typeof SAVED {
  return JSON.parse(previews(form, changed).json ?? '') as typeof SAVED;
}

describe('previewFormats', () => {
  it('shows an unchanged brand exactly as the read operation returns it, key for key', () => {
    const [json] = previewFormats(accepted(toForm(SAVED)), SAVED, false);
    expect(json?.sent).toBe(serializeBrandContext(SAVED));
    expect(json?.shown).toBe(JSON.stringify(JSON.parse(serializeBrandContext(SAVED)), null, 2));
  });

  it('leaves the ids, timestamps and version a save settles to the service, and keeps those of untouched entries', () => {
    const form = toForm(SAVED);
    form.knowledge.push({
      key: 'k',
      id: undefined,
      kind: 'guideline',
      title: 'Tone',
      content: 'Warm',
      tags: '',
    });
    const preview = previewJson(form, true);
    expect(preview.knowledge.map((entry) => [entry.id, entry.updated_at])).toEqual([
      ['kb_1', '2025-01-01T00:00:00.000Z'],
      ['(assigned on save)', '(set on save)'],
    ]);
    expect(preview.updated_at).toBe('(set on save)');
    expect(preview.version).toBe(4);
  });

  it('marks an edited entry’s timestamp as set on save', () => {
    const form = toForm(SAVED);
    const [entry] = form.knowledge;
    if (entry) form.knowledge[0] = { ...entry, content: '1998' };
    const preview = previewJson(form, true);
    expect(preview.knowledge[0]).toMatchObject({ id: 'kb_1', content: '1998', updated_at: '(set on save)' });
  });

  it('renders the unsaved voice as the Markdown the read operation answers, under "## Voice"', () => {
    const form = { ...toForm(SAVED), voice: 'Warm, brief, never salesy.' };
    const { markdown } = previews(form, true);
    expect(markdown).toContain('# Acme Coffee');
    expect(markdown).toContain('## Voice\nWarm, brief, never salesy.');
    expect(markdown).not.toContain('kb_1');
  });

  it('renders the colors as design tokens, with the version a save would give', () => {
    const form = { ...toForm(SAVED), voice: 'Changed' };
    const tokens = JSON.parse(previews(form, true).dtcg ?? '') as {
      color: { primary: { $value: string } };
      $extensions: Record<string, unknown>;
    };
    expect(tokens.color.primary.$value).toBe('#6B3E26');
    expect(tokens.$extensions['brand-context']).toEqual({
      workspace_id: 'ws_1',
      version: 4,
      updated_at: '(set on save)',
    });
  });

  it('names each field the service would refuse, in the words of its 400 answer', () => {
    const form = toForm(SAVED);
    form.colors.primary = '#12345';
    form.fonts.heading = { ...form.fonts.heading, family: 'Inter', weights: '400, bold' };
    const [entry] = form.knowledge;
    if (entry) form.knowledge[0] = { ...entry, title: '' };
    expect(accept(toDocument(form))).toEqual({
      refused: [
        { field: 'colors.primary', message: 'must be a #RRGGBB color' },
        { field: 'fonts.heading.weights[1]', message: 'must be a number' },
        { field: 'knowledge[0].title', message: 'must not be empty' },
      ],
    });
  });
});
