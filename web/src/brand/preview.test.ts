import { describe, expect, it } from 'vitest';
import { brandContextSchema } from '../../../src/contract/brand-context';
import { serializeBrandContext } from '../../../src/core/brand-context';
import { toDocument, toForm } from './model';
import { previewJson } from './preview';

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

describe('previewJson', () => {
  it('shows an unchanged brand exactly as the read operation returns it, key for key', () => {
    const preview = previewJson(toDocument(toForm(SAVED)), SAVED, false);
    expect(preview).toBe(JSON.stringify(JSON.parse(serializeBrandContext(SAVED)), null, 2));
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
    const preview = JSON.parse(previewJson(toDocument(form), SAVED, true)) as typeof SAVED;
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
    const preview = JSON.parse(previewJson(toDocument(form), SAVED, true)) as typeof SAVED;
    expect(preview.knowledge[0]).toMatchObject({ id: 'kb_1', content: '1998', updated_at: '(set on save)' });
  });
});
