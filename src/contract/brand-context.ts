import { brandContextObjectSchema } from '../core/brand-context.js';

/**
 * The brand context object as the API reference names it (docs/reading-brand-context.md "The brand context
 * object"). Its fields and rules, and the brand document clients write, are the domain's:
 * src/core/brand-context.ts.
 */
export const brandContextSchema = brandContextObjectSchema.meta({ id: 'BrandContext' });

/**
 * The read operation's JSON answer to a body naming `sections` (docs/reading-brand-context.md "Formats and sections"): only those
 * sections, between the fields that say which brand and which version it is, which are always there.
 */
export const brandContextSectionsSchema = brandContextObjectSchema
  .partial()
  .required({ workspace_id: true, updated_at: true, version: true })
  .meta({
    id: 'BrandContextSections',
    description:
      'Some sections of the brand context object: `workspace_id`, `updated_at` and `version` always, and each section the request names',
  });
