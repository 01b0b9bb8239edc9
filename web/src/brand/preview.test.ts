import { describe, expect, it } from 'vitest';
import { brandContextSchema } from '../../../src/contract/brand-context';
import { serializeBrandContext } from '../../../src/core/brand-context';
import { type BrandDocument, toDocument, toForm } from './model';
import { previewFormats } from './preview';

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
  updated_at: '2025-01-02T00:00:00.000Z',
  version: 3,
});

/** Each format's preview as shown, by format. */
function previews(document: BrandDocument, changed: boolean): Record<string, string> {
  return Object.fromEntries(
    previewFormats(document, SAVED, changed).map((preview) => [preview.format, preview.shown]),
  );
}

function previewJson(document: BrandDocument, changed: boolean): typeof SAVED {
  return JSON.parse(previews(document, changed).json ?? '') as typeof SAVED;
}

describe('previewFormats', () => {
  it('shows an unchanged brand exactly as the read operation returns it, key for key', () => {
    const [json] = previewFormats(toDocument(toForm(SAVED)), SAVED, false);
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
    const preview = previewJson(toDocument(form), true);
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
    const preview = previewJson(toDocument(form), true);
    expect(preview.knowledge[0]).toMatchObject({ id: 'kb_1', content: '1998', updated_at: '(set on save)' });
  });

  it('renders the unsaved voice as the Markdown the read operation answers, under "## Voice"', () => {
    const form = { ...toForm(SAVED), voice: 'Warm, brief, never salesy.' };
    const { markdown } = previews(toDocument(form), true);
    expect(markdown).toContain('# Acme Coffee');
    expect(markdown).toContain('## Voice\nWarm, brief, never salesy.');
    expect(markdown).not.toContain('kb_1');
  });

  it('renders the colors as design tokens, with the version a save would give', () => {
    const form = { ...toForm(SAVED), voice: 'Changed' };
    const tokens = JSON.parse(previews(toDocument(form), true).dtcg ?? '') as {
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

  it('leaves out a font weight or asset size typed as text, which Save refuses', () => {
    const form = toForm(SAVED);
    form.fonts.heading = { ...form.fonts.heading, family: 'Inter', weights: '400, bold' };
    const preview = previewJson(toDocument(form), true);
    expect(preview.fonts.heading?.weights).toEqual([400]);
  });
});
