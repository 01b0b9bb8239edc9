import { describe, expect, it } from 'vitest';
import { brandContextSchema } from '../../../src/contract/brand-context';
import { authorText, draftChanges, sectionsText, valueText } from './versions';

describe('authorText', () => {
  it('names each kind of author as the history shows it', () => {
    expect(authorText({ type: 'user', id: 'usr_1', email: 'sam@acme.example' })).toBe('sam@acme.example');
    expect(authorText({ type: 'user', id: 'usr_1', email: null })).toBe('usr_1');
    expect(authorText({ type: 'user', id: null, email: null })).toBe('A deleted account');
    expect(authorText({ type: 'api_key', id: 'ak_1' })).toBe('Workspace API key ak_1');
    expect(authorText({ type: 'operator' })).toBe('Operator (CLI)');
    expect(authorText({ type: 'system' })).toBe('System');
  });
});

describe('sectionsText', () => {
  it('names the sections as the editor does, in the order given, and says None for a version that changed none', () => {
    expect(sectionsText(['voice', 'social', 'colors'])).toBe('Voice, Social links, Colors');
    expect(sectionsText([])).toBe('None');
  });
});

describe('valueText', () => {
  it('shows text as it is and anything else as indented JSON', () => {
    expect(valueText('Warm, brief.')).toBe('Warm, brief.');
    expect(valueText(null)).toBe('null');
    expect(valueText(['a', 1])).toBe('[\n  "a",\n  1\n]');
    expect(valueText(undefined)).toBe('');
  });
});

describe('draftChanges', () => {
  const published = brandContextSchema.parse({
    workspace_id: 'ws_1',
    name: 'Acme Coffee',
    description: '',
    voice: 'Warm, plain-spoken and curious.',
    colors: { primary: '#6B3E26', secondary: null, accent: null, background: null, text: null, palette: [] },
    fonts: { heading: null, body: null },
    social: {},
    knowledge: [],
    assets: [],
    skills: [],
    preferences: {},
    rules: [],
    updated_at: '2026-01-01T00:00:00.000Z',
    version: 3,
  });

  it('finds what a draft changes of the published brand, section by section, as the service’s diff does', () => {
    const draft = { ...published, voice: 'Plain.', version: 3, updated_at: '2026-01-02T00:00:00.000Z' };
    expect(draftChanges(published, draft)).toEqual([
      {
        section: 'voice',
        changes: [{ op: 'replace', path: '/voice', before: published.voice, after: 'Plain.' }],
      },
    ]);
  });

  it('finds nothing in a draft that holds the published brand, whatever its version and time', () => {
    expect(
      draftChanges(published, { ...published, version: 2, updated_at: '2027-01-01T00:00:00.000Z' }),
    ).toEqual([]);
  });
});
