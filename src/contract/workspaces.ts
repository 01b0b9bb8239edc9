import { z } from 'zod';
import { BRAND_REVIEW_MODES } from '../core/brand-versions.js';
import { nameSchema } from '../core/inputs.js';
import { ROLES } from '../core/roles.js';

/** A workspace as its member sees it: with the member's role in it. */
export const workspaceSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string(), role: z.enum(ROLES) })
  .meta({ id: 'Workspace' });
export type Workspace = z.output<typeof workspaceSchema>;

export const workspaceListSchema = z.object({ workspaces: z.array(workspaceSchema) });

const brandReviewSchema = z
  .enum(BRAND_REVIEW_MODES)
  .describe(
    'off: owners and admins save the brand directly; required: changes go to a draft that an owner or admin publishes (docs/brand-versions.md "Review")',
  );

/** One workspace with its settings, as GET and PATCH /api/v1/workspaces/{id} answer. */
export const workspaceDetailsSchema = workspaceSchema
  .extend({ brand_review: brandReviewSchema })
  .meta({ id: 'WorkspaceDetails' });
export type WorkspaceDetails = z.output<typeof workspaceDetailsSchema>;

/** PATCH /api/v1/workspaces/{id}: what to change, at least one of them. */
export const workspaceUpdateSchema = z
  .strictObject({
    name: nameSchema.describe("The workspace's new name: also the brand's, so a new version of the brand"),
    brand_review: brandReviewSchema,
  })
  .partial()
  .refine((update) => Object.keys(update).length > 0, {
    error: 'must name at least one of name and brand_review',
    // An unknown field is the whole story; "name at least one" on top of it would only confuse.
    when: (payload) => payload.issues.length === 0,
  })
  .meta({ id: 'WorkspaceUpdate' });
export type WorkspaceUpdate = z.output<typeof workspaceUpdateSchema>;
