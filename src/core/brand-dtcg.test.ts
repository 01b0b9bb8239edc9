import StyleDictionary from 'style-dictionary';
import type { DesignTokens } from 'style-dictionary/types';
import { describe, expect, it } from 'vitest';
import { brandContext, demoBrandContext } from '#test/support/fixtures/demo-brand.js';
import { DEMO_BRAND } from '../services/demo/demo-brand.js';
import type { BrandContext } from './brand-context.js';
import { tokenName } from './brand-dtcg.js';
import { brandView, type BrandViewRequest, renderBrandView } from './brand-views.js';

type Node = { [name: string]: unknown };

/** The design-token file as a design tool reads it. */
function designTokens(context: BrandContext, request: Omit<BrandViewRequest, 'format'> = {}): Node {
  return JSON.parse(renderBrandView(context, brandView({ format: 'dtcg', ...request })).text) as Node;
}

interface Found {
  path: string;
  value: unknown;
  type: unknown;
}

/** Every token of a group with its path and its type, its own or the nearest group's (DTCG type inheritance). */
function tokensOf(group: Node, inherited?: unknown, path: string[] = []): Found[] {
  const type = group.$type ?? inherited;
  if ('$value' in group) return [{ path: path.join('.'), value: group.$value, type }];
  return Object.entries(group)
    .filter(([name]) => !name.startsWith('$'))
    .flatMap(([name, child]) => tokensOf(child as Node, type, [...path, name]));
}

/** The names of every token and group: what a DTCG reader takes for a name rather than a property. */
function namesOf(group: Node): string[] {
  return Object.entries(group).flatMap(([name, child]) =>
    ['$value', '$type', '$description', '$extensions'].includes(name)
      ? []
      : [name, ...(typeof child === 'object' && child !== null ? namesOf(child as Node) : [])],
  );
}

function palette(names: string[]): BrandContext {
  return brandContext({
    name: 'Palette',
    colors: { palette: names.map((name, index) => ({ name, hex: `#00000${String(index % 10)}` })) },
  });
}

function paletteTokens(names: string[]): string[] {
  const color = designTokens(palette(names)).color as { palette: Node };
  return Object.keys(color.palette);
}

describe('brandDesignTokens', () => {
  it('gives the demo brand’s colors and fonts as typed tokens', () => {
    expect(tokensOf(designTokens(demoBrandContext()))).toEqual([
      { path: 'color.primary', value: '#6B3E26', type: 'color' },
      { path: 'color.secondary', value: '#F2E8DC', type: 'color' },
      { path: 'color.accent', value: '#D9822B', type: 'color' },
      { path: 'color.background', value: '#FFFFFF', type: 'color' },
      { path: 'color.text', value: '#1F1A17', type: 'color' },
      { path: 'color.palette.espresso', value: '#6B3E26', type: 'color' },
      { path: 'color.palette.oat-milk', value: '#F2E8DC', type: 'color' },
      { path: 'color.palette.copper', value: '#D9822B', type: 'color' },
      { path: 'color.palette.charcoal', value: '#1F1A17', type: 'color' },
      { path: 'font.heading.family', value: ['Fraunces', 'Georgia', 'serif'], type: 'fontFamily' },
      { path: 'font.heading.weight.600', value: 600, type: 'fontWeight' },
      { path: 'font.heading.weight.700', value: 700, type: 'fontWeight' },
      { path: 'font.body.family', value: ['Inter', 'system-ui', 'sans-serif'], type: 'fontFamily' },
      { path: 'font.body.weight.400', value: 400, type: 'fontWeight' },
      { path: 'font.body.weight.500', value: 500, type: 'fontWeight' },
    ]);
  });

  it('says at its root whose tokens they are and from which version', () => {
    const demo = demoBrandContext();
    const tokens = designTokens(demo);
    expect(tokens.$description).toBe('Design tokens of Acme Coffee');
    expect(tokens.$extensions).toEqual({
      'brand-context': {
        workspace_id: demo.workspace_id,
        version: demo.version,
        updated_at: demo.updated_at,
      },
    });
  });

  it('describes a palette token by its name and role', () => {
    const color = designTokens(demoBrandContext()).color as { palette: Record<string, Node> };
    expect(color.palette['oat-milk']?.$description).toBe('Oat milk (secondary)');
  });

  it('carries only the asked section', () => {
    expect(Object.keys(designTokens(demoBrandContext(), { sections: ['colors'] }))).toEqual([
      '$description',
      '$extensions',
      'color',
    ]);
    expect(Object.keys(designTokens(demoBrandContext(), { sections: ['fonts'] }))).toEqual([
      '$description',
      '$extensions',
      'font',
    ]);
  });

  it('leaves out the groups a brand has nothing for', () => {
    expect(tokensOf(designTokens(brandContext({ name: 'Blank' })))).toEqual([]);
    expect(Object.keys(designTokens(brandContext({ name: 'Blank' })))).toEqual([
      '$description',
      '$extensions',
    ]);
  });
});

describe('token names', () => {
  it('are palette names in lower-case words joined by hyphens, accents dropped', () => {
    expect(paletteTokens(['Oat milk', 'Crème Brûlée', '  Deep   Sea  Blue! '])).toEqual([
      'oat-milk',
      'creme-brulee',
      'deep-sea-blue',
    ]);
  });

  it('are unique within the palette: a repeated name gets -2, -3', () => {
    expect(paletteTokens(['Oat milk', 'oat-milk', 'OAT MILK', 'Oat milk 2'])).toEqual([
      'oat-milk',
      'oat-milk-2',
      'oat-milk-3',
      'oat-milk-2-2',
    ]);
  });

  it('are numbered when a name has no letter or digit', () => {
    expect(paletteTokens(['★', 'Color 1', '—'])).toEqual(['color-1', 'color-1-2', 'color-3']);
  });

  it('never hold ".", "{", "}" or a leading "$", which DTCG reserves for paths, aliases and properties', () => {
    const hostile = palette(['a.b', '{primary}', '$value', '$type', 'x}{y', '..', '$']);
    for (const tokens of [designTokens(hostile), designTokens(demoBrandContext())])
      for (const name of namesOf(tokens)) {
        expect(name).not.toMatch(/[.{}]/);
        expect(name).not.toMatch(/^\$/);
        expect(name).not.toBe('');
      }
    expect(tokenName('{color.primary}')).toBe('color-primary');
  });

  it('keep brand text literal: braces, which DTCG reads as an alias, become parentheses', () => {
    const tokens = designTokens(
      brandContext({
        name: 'Acme {color.primary}',
        colors: { primary: '#6B3E26', palette: [{ name: 'Oat {milk}', hex: '#F2E8DC' }] },
        fonts: { heading: { family: '{color.primary}', fallback: ['{font}'], source: 'custom' } },
      }),
    );
    expect(tokens.$description).toBe('Design tokens of Acme (color.primary)');
    expect(tokensOf(tokens).find((token) => token.path === 'font.heading.family')?.value).toEqual([
      '(color.primary)',
      '(font)',
    ]);
    expect((tokens.color as { palette: Record<string, Node> }).palette['oat-milk']?.$description).toBe(
      'Oat (milk)',
    );
  });

  it('give every token a value and a type, its own or its group’s', () => {
    const hostile = palette(['a.b', '{primary}', '$value']);
    for (const tokens of [designTokens(hostile), designTokens(demoBrandContext())])
      for (const token of tokensOf(tokens)) {
        expect(token.value).toBeDefined();
        expect(['color', 'fontFamily', 'fontWeight']).toContain(token.type);
      }
  });
});

describe('Style Dictionary import', () => {
  async function cssVariables(context: BrandContext): Promise<string> {
    const sd = new StyleDictionary({
      tokens: designTokens(context) as DesignTokens,
      platforms: {
        css: { transformGroup: 'css', files: [{ destination: 'vars.css', format: 'css/variables' }] },
      },
      log: { verbosity: 'silent' },
    });
    const [file] = await sd.formatPlatform('css');
    return String(file?.output);
  }

  it('turns the demo brand into the CSS variables a designer expects', async () => {
    const css = await cssVariables(demoBrandContext());
    for (const declaration of [
      '--color-primary: #6b3e26;',
      '--color-secondary: #f2e8dc;',
      '--color-background: #ffffff;',
      '--color-palette-oat-milk: #f2e8dc; /** Oat milk (secondary) */',
      '--font-heading-family: Fraunces, Georgia, serif;',
      '--font-heading-weight-600: 600;',
      '--font-body-family: Inter, system-ui, sans-serif;',
      '--font-body-weight-500: 500;',
    ])
      expect(css).toContain(declaration);
    expect(css.match(/^ {2}--/gm)).toHaveLength(15);
    expect(css).not.toContain('[object Object]');
    expect(css).not.toContain('brand-context');
  });

  it('imports a brand whose text holds braces or a comment’s end, without resolving or injecting anything', async () => {
    const css = await cssVariables(
      brandContext({
        name: 'Acme {Coffee}',
        colors: { primary: '#6B3E26', palette: [{ name: 'Oat */ body: red; /* {milk}', hex: '#F2E8DC' }] },
        fonts: { heading: { family: '{color.primary}', source: 'custom' } },
      }),
    );
    expect(css).toContain('--font-heading-family: (color.primary);');
    expect(css).toContain('/** Oat * / body: red; /* (milk) */');
    expect(css.match(/\*\//g)).toHaveLength(2);
  });

  it('quotes a family whose name has spaces', async () => {
    const css = await cssVariables(
      brandContext({
        ...DEMO_BRAND,
        fonts: {
          heading: { family: 'Source Serif 4', fallback: ['Times New Roman', 'serif'], source: 'google' },
        },
      }),
    );
    expect(css).toContain(`--font-heading-family: 'Source Serif 4', 'Times New Roman', serif;`);
  });
});
