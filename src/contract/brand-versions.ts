import { z } from 'zod';
import { BRAND_SECTIONS, type BrandDocument, brandDocumentSchema } from '../core/brand-context.js';
import { singleLine } from '../core/inputs.js';
import { auditActorSchema } from './audit.js';

/*
 * The brand's history on the management API (docs/brand-versions.md): its versions, one version as it was,
 * the changes between two, and the note a change of the published brand may carry.
 */

/** Versions are numbered from 1; the bound keeps a number within every backend's integer column. */
export const MAX_BRAND_VERSION = 2 ** 31 - 1;

/** A version number in a path or a query: a positive integer. */
export const brandVersionNumberSchema = z.coerce
  .number({ error: 'must be a positive whole number' })
  .int('must be a positive whole number')
  .min(1, 'must be a positive whole number')
  .max(MAX_BRAND_VERSION, `must be at most ${String(MAX_BRAND_VERSION)}`);

/** Why a change was made, in one line: absent, null or empty, none (null). */
export const brandChangeNoteSchema = singleLine(z.string().trim().max(500, 'must be at most 500 characters'))
  .nullable()
  .optional()
  .transform((note) => (note ? note : null))
  .describe('Why the change was made: one line, at most 500 characters, shown in the history');

/**
 * The body of a restore or a publish: an optional note, or no body at all (which Fastify validates as null).
 */
export const brandNoteSchema = z.strictObject({ note: brandChangeNoteSchema }).nullish();
export type BrandNoteInput = z.input<typeof brandNoteSchema>;

/**
 * PUT …/brand: the brand document with an optional `note` beside it (an exported brand is still accepted as
 * it is). Parsed to the document's fields and the note, at the same level as sent, so a refused field is
 * named as the client wrote it.
 */
export const brandUpdateSchema = brandDocumentSchema.in
  .extend({ note: brandChangeNoteSchema })
  .transform(
    ({ workspace_id: _id, updated_at: _at, version: _version, ...update }) =>
      update satisfies BrandDocument & { note: string | null },
  );

const sectionSchema = z.enum(BRAND_SECTIONS);

/** One version of the brand, as the history lists it. */
export const brandVersionSchema = z
  .object({
    version: z.number().int(),
    created_at: z.string(),
    created_by: auditActorSchema.describe('Who published this version, as the audit log names them'),
    note: z.string().nullable(),
    sections_changed: z
      .array(sectionSchema)
      .describe('The sections whose content differs from the version before; every section for version 1'),
  })
  .meta({ id: 'BrandVersion' });
export type BrandVersion = z.output<typeof brandVersionSchema>;

export const brandVersionPageSchema = z
  .object({
    items: z.array(brandVersionSchema),
    /** Pass back as `cursor` for the next (older) page; null on the last page. */
    next_cursor: z.string().nullable(),
  })
  .meta({ id: 'BrandVersionPage' });
export type BrandVersionPage = z.output<typeof brandVersionPageSchema>;

const brandChangeEntrySchema = z
  .object({
    op: z.enum(['add', 'remove', 'replace', 'move']),
    path: z
      .string()
      .describe(
        'A JSON Pointer from the brand root (/colors/primary, /knowledge/3/title): into the older version for a remove, the newer for the rest',
      ),
    from: z.string().optional().describe('A move only: where the entry was in the older version'),
    before: z.unknown().optional().describe('The value in the older version (replace, remove)'),
    after: z.unknown().optional().describe('The value in the newer version (add, replace)'),
  })
  .meta({ id: 'BrandChangeEntry' });

export const brandVersionDiffSchema = z
  .object({
    from: z.number().int(),
    to: z.number().int(),
    sections: z
      .array(z.object({ section: sectionSchema, changes: z.array(brandChangeEntrySchema) }))
      .describe('Only the sections that changed, in the order of the brand context object'),
  })
  .meta({ id: 'BrandVersionDiff' });
export type BrandVersionDiffView = z.output<typeof brandVersionDiffSchema>;
