import { COLOR_ROLES, FONT_SLOTS } from '../contract/brand-context.js';
import type { BrandDesignTokens, ColorTokens, FontTokens } from '../contract/brand-views.js';
import type { BrandContext, BrandSection } from './brand-context.js';

/**
 * The brand's colors and fonts as a Design Tokens Community Group file (docs/reading-brand-context.md "Formats and sections"), for
 * Style Dictionary, Tokens Studio and other design tools:
 *
 * - `color.<role>` for each role with a value, `color.palette.<name>` for the palette (names made token-safe);
 * - `font.<slot>.family` (fontFamily: the family, then its fallbacks) and `font.<slot>.weight.<n>` (fontWeight).
 *
 * Colors are `#RRGGBB` strings, the form of the DTCG drafts that these tools import: the object form of the
 * 2025.10 format (`{colorSpace, components, hex}`) comes out of Style Dictionary 4 as "[object Object]".
 */

/**
 * Brand text as a DTCG string that tools read as nothing more: braces (an alias in DTCG, which Style
 * Dictionary also resolves in descriptions) become parentheses, and a comment's end ("*" then "/") is broken
 * up, because Style Dictionary copies descriptions into CSS comments.
 */
function literal(text: string): string {
  return text.replace(/\s+/g, ' ').trim().replace(/\{/g, '(').replace(/\}/g, ')').replace(/\*\//g, '* /');
}

/** A palette name as a DTCG token name: lower-case words joined by "-" (no ".", "{", "}" or leading "$"). */
export function tokenName(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** Names unique within their group: a repeated one gets "-2", "-3"… */
function uniqueNames(names: readonly string[], fallback: (index: number) => string): string[] {
  const seen = new Set<string>();
  return names.map((name, index) => {
    const base = tokenName(name) || fallback(index);
    let unique = base;
    for (let n = 2; seen.has(unique); n++) unique = `${base}-${String(n)}`;
    seen.add(unique);
    return unique;
  });
}

function colorGroup(colors: BrandContext['colors']): ColorTokens | null {
  const group: ColorTokens = { $type: 'color' };
  for (const role of COLOR_ROLES) {
    const hex = colors[role];
    if (hex !== null) group[role] = { $value: hex };
  }
  if (colors.palette.length > 0) {
    const names = uniqueNames(
      colors.palette.map((entry) => entry.name),
      (index) => `color-${String(index + 1)}`,
    );
    group.palette = Object.fromEntries(
      colors.palette.map((entry, index) => [
        names[index] ?? String(index),
        {
          $value: entry.hex,
          $description: literal(entry.role === null ? entry.name : `${entry.name} (${entry.role})`),
        },
      ]),
    );
  }
  return Object.keys(group).length > 1 ? group : null;
}

function fontGroup(fonts: BrandContext['fonts']): FontTokens | null {
  const group: FontTokens = {};
  for (const slot of FONT_SLOTS) {
    const font = fonts[slot];
    if (font === null) continue;
    const slotGroup: NonNullable<FontTokens[typeof slot]> = {
      family: { $type: 'fontFamily', $value: [font.family, ...font.fallback].map(literal) },
    };
    if (font.weights.length > 0)
      slotGroup.weight = {
        $type: 'fontWeight',
        ...Object.fromEntries(font.weights.map((weight) => [String(weight), { $value: weight }])),
      };
    group[slot] = slotGroup;
  }
  return Object.keys(group).length > 0 ? group : null;
}

/**
 * The tokens of `sections` (colors and/or fonts). The root describes the brand, and its `$extensions` say
 * which workspace and version the tokens come from, so a build can tell when they are stale.
 */
export function brandDesignTokens(
  context: BrandContext,
  sections: readonly BrandSection[],
): BrandDesignTokens {
  const tokens: BrandDesignTokens = {
    $description: literal(`Design tokens of ${context.name}`),
    $extensions: {
      'brand-context': {
        workspace_id: context.workspace_id,
        version: context.version,
        updated_at: context.updated_at,
      },
    },
  };
  const color = sections.includes('colors') ? colorGroup(context.colors) : null;
  const font = sections.includes('fonts') ? fontGroup(context.fonts) : null;
  if (color !== null) tokens.color = color;
  if (font !== null) tokens.font = font;
  return tokens;
}
