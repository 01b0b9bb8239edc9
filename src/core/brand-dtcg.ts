import { z } from 'zod';
import {
  type BrandContext,
  type BrandSection,
  COLOR_ROLES,
  type ColorRole,
  FONT_SLOTS,
  FONT_WEIGHTS,
  HEX_COLOR,
} from './brand-context.js';

type FontSlot = (typeof FONT_SLOTS)[number];

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

/*
 * The file as a schema, so that the API reference says what it holds, group by group
 * (src/contract/brand-views.ts names it there).
 */

/** A palette name made token-safe (`tokenName`): lower-case words joined by "-". */
export const TOKEN_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

const colorToken = z.strictObject({ $value: z.string().regex(HEX_COLOR) });
const paletteToken = colorToken.extend({ $description: z.string() });
const colorTokens = z.strictObject({
  $type: z.literal('color'),
  primary: colorToken.optional(),
  secondary: colorToken.optional(),
  accent: colorToken.optional(),
  background: colorToken.optional(),
  text: colorToken.optional(),
  palette: z.record(z.string().regex(TOKEN_NAME), paletteToken).optional(),
}) satisfies z.ZodObject<Record<ColorRole, z.ZodOptional<typeof colorToken>>>;
const fontSlotTokens = z.strictObject({
  family: z.strictObject({ $type: z.literal('fontFamily'), $value: z.array(z.string()).min(1) }),
  // The catchall takes `$type` too because TypeScript types an index signature over every key.
  weight: z
    .object({ $type: z.literal('fontWeight') })
    .catchall(
      z.union([
        z.strictObject({ $value: z.number().int().min(FONT_WEIGHTS.min).max(FONT_WEIGHTS.max) }),
        z.literal('fontWeight'),
      ]),
    )
    .optional()
    .describe(
      '`$type` fontWeight, and a token per weight named by its number, e.g. `"700": { "$value": 700 }`',
    ),
});
const fontTokens = z.strictObject({
  heading: fontSlotTokens.optional(),
  body: fontSlotTokens.optional(),
}) satisfies z.ZodObject<Record<FontSlot, z.ZodOptional<typeof fontSlotTokens>>>;

/** The read operation's answer with `format: "dtcg"`. */
export const designTokensSchema = z.strictObject({
  $description: z.string(),
  $extensions: z.strictObject({
    'brand-context': z
      .strictObject({ workspace_id: z.string(), version: z.number().int(), updated_at: z.string() })
      .describe('Which brand, and which version of it, the tokens come from'),
  }),
  color: colorTokens.optional(),
  font: fontTokens.optional(),
});

export type BrandDesignTokens = z.output<typeof designTokensSchema>;
export type ColorTokens = NonNullable<BrandDesignTokens['color']>;
export type FontTokens = NonNullable<BrandDesignTokens['font']>;

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
