import { z } from 'zod';
import { BRAND_SECTIONS } from '../core/brand-context.js';
import { type ColorRole, FONT_SLOTS, FONT_WEIGHTS, HEX_COLOR, KNOWLEDGE_KINDS } from './brand-context.js';

type FontSlot = (typeof FONT_SLOTS)[number];

/**
 * The read operation's options for AI clients (docs/reading-brand-context.md "Formats and sections"): which rendering, which
 * sections, and which knowledge entries. Absent, the operation answers the whole brand as JSON, exactly as
 * before they existed.
 */

export const BRAND_FORMATS = ['json', 'markdown', 'dtcg'] as const;
export type BrandFormat = (typeof BRAND_FORMATS)[number];

/** The sections a design-token file can carry: the rest of a brand is not a design token. */
export const DTCG_SECTIONS = [
  'colors',
  'fonts',
] as const satisfies readonly (typeof BRAND_SECTIONS)[number][];

const MAX_TAGS = 30;

/** The option fields, to spread into a request body's object schema beside its own fields. */
export const brandViewFields = {
  format: z
    .enum(BRAND_FORMATS, { error: `must be one of ${BRAND_FORMATS.join(', ')}` })
    .optional()
    .describe('json (the default), markdown (compact, for system prompts) or dtcg (design tokens)'),
  sections: z
    .array(z.enum(BRAND_SECTIONS, { error: `must be one of ${BRAND_SECTIONS.join(', ')}` }), {
      error: 'must be an array of section names',
    })
    .min(1, 'must name at least one section; leave sections out for the whole brand')
    .max(BRAND_SECTIONS.length * 2, `must name at most ${String(BRAND_SECTIONS.length * 2)} sections`)
    .optional()
    .describe('Only these sections of the brand, e.g. ["voice", "colors"]'),
  knowledge_kinds: z
    .array(z.enum(KNOWLEDGE_KINDS, { error: `must be one of ${KNOWLEDGE_KINDS.join(', ')}` }), {
      error: 'must be an array of knowledge kinds',
    })
    .min(1, 'must name at least one kind; leave knowledge_kinds out for every kind')
    .max(KNOWLEDGE_KINDS.length * 2, `must name at most ${String(KNOWLEDGE_KINDS.length * 2)} kinds`)
    .optional()
    .describe('Only knowledge entries of these kinds (fact, guideline, reference)'),
  knowledge_tags: z
    .array(
      z
        .string({ error: 'must be a string' })
        .trim()
        .min(1, 'must not be empty')
        .max(50, 'must be at most 50 characters'),
      { error: 'must be an array of tags' },
    )
    .min(1, 'must name at least one tag; leave knowledge_tags out for every entry')
    .max(MAX_TAGS, `must name at most ${String(MAX_TAGS)} tags`)
    .optional()
    .describe('Only knowledge entries carrying at least one of these tags (compared case-insensitively)'),
};

type BrandViewInput = z.output<z.ZodObject<typeof brandViewFields>>;

/**
 * The rules between the option fields, for a schema's `superRefine`: a knowledge filter needs the knowledge
 * section, and a design-token file carries colors and fonts only. Each message reads after its field's name
 * ("Invalid request: sections can name only …").
 */
export function checkBrandView(input: BrandViewInput, ctx: z.RefinementCtx): void {
  const filters = (['knowledge_kinds', 'knowledge_tags'] as const).filter((field) => input[field]);
  if (input.format === 'dtcg') {
    const others = (input.sections ?? []).filter(
      (section) => !(DTCG_SECTIONS as readonly string[]).includes(section),
    );
    if (others.length > 0)
      ctx.addIssue({
        code: 'custom',
        path: ['sections'],
        message: `can name only ${DTCG_SECTIONS.join(' and ')} with format dtcg, not ${others.join(', ')}`,
      });
    for (const field of filters)
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: 'cannot be used with format dtcg, which carries no knowledge',
      });
    return;
  }
  if (input.sections !== undefined && !input.sections.includes('knowledge'))
    for (const field of filters)
      ctx.addIssue({
        code: 'custom',
        path: [field],
        message: 'needs "knowledge" in sections: it filters that section',
      });
}

/** The options alone, checked: what the MCP server and the console validate before they ask. */
export const brandViewSchema = z.strictObject(brandViewFields).superRefine(checkBrandView);
export type BrandViewOptions = z.input<typeof brandViewSchema>;

/*
 * The `dtcg` view (src/core/brand-dtcg.ts): a Design Tokens Community Group file of the brand's colors and
 * fonts. Described here so that the API reference says what it holds, group by group.
 */

/** A palette name made token-safe: lower-case words joined by "-". */
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
export const brandDesignTokensSchema = z
  .strictObject({
    $description: z.string(),
    $extensions: z.strictObject({
      'brand-context': z
        .strictObject({ workspace_id: z.string(), version: z.number().int(), updated_at: z.string() })
        .describe('Which brand, and which version of it, the tokens come from'),
    }),
    color: colorTokens.optional(),
    font: fontTokens.optional(),
  })
  .meta({
    id: 'BrandDesignTokens',
    description:
      'The colors (`color.<role>`, `color.palette.<name>`) and fonts (`font.<slot>.family`, `font.<slot>.weight.<n>`) as a Design Tokens Community Group file; a group is left out when the brand has nothing in it or the request did not name its section',
  });

export type BrandDesignTokens = z.output<typeof brandDesignTokensSchema>;
export type ColorTokens = NonNullable<BrandDesignTokens['color']>;
export type FontTokens = NonNullable<BrandDesignTokens['font']>;
