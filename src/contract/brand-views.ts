import { z } from 'zod';
import { BRAND_SECTIONS, KNOWLEDGE_KINDS } from '../core/brand-context.js';
import { designTokensSchema } from '../core/brand-dtcg.js';
import { BRAND_FORMATS, DTCG_SECTIONS } from '../core/brand-views.js';

/**
 * The read operation's options for AI clients (docs/reading-brand-context.md "Formats and sections"): which rendering, which
 * sections, and which knowledge entries. Absent, the operation answers the whole brand as JSON, exactly as
 * before they existed. The views themselves are the domain's: src/core/brand-views.ts.
 */

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

/** The highest version a read may pin: versions are 32-bit integers in the store. */
export const MAX_BRAND_VERSION = 2 ** 31;

/**
 * The read operation's `version` (docs/brand-versions.md "Pinned reads"): the brand as it was at that version,
 * in any view; absent, the latest. Not a view option: the view is the same whichever version it renders.
 */
export const brandVersionField = {
  version: z
    .number({ error: 'must be a positive integer' })
    .int('must be a positive integer')
    .min(1, 'must be a positive integer')
    .max(MAX_BRAND_VERSION, `must be at most ${String(MAX_BRAND_VERSION)}`)
    .optional()
    .describe(
      'Read the brand as it was at this version (Brand-Version of an earlier read); leave it out for the latest',
    ),
};

/** The options alone, checked: what the MCP server and the console validate before they ask. */
export const brandViewSchema = z.strictObject(brandViewFields).superRefine(checkBrandView);
export type BrandViewOptions = z.input<typeof brandViewSchema>;
/** A view of the brand at a version, as the MCP server and the console ask the read operation for one. */
export type BrandReadOptions = BrandViewOptions & { version?: number | undefined };

/** The read operation's answer with `format: "dtcg"` (src/core/brand-dtcg.ts), as the API reference names it. */
export const brandDesignTokensSchema = designTokensSchema.meta({
  id: 'BrandDesignTokens',
  description:
    'The colors (`color.<role>`, `color.palette.<name>`) and fonts (`font.<slot>.family`, `font.<slot>.weight.<n>`) as a Design Tokens Community Group file; a group is left out when the brand has nothing in it or the request did not name its section',
});
