import type { BrandSection } from './brand-context.js';

/**
 * Brand versions and review (docs/brand-versions.md): every change of the published brand is an immutable
 * version; with review `required`, changes wait in a draft until an owner or admin publishes them.
 * Pure: no I/O.
 */

export const BRAND_REVIEW_MODES = ['off', 'required'] as const;
export type BrandReview = (typeof BRAND_REVIEW_MODES)[number];

/** A version's number is a positive integer; the first version of every brand is 1. */
export const FIRST_BRAND_VERSION = 1;

/**
 * The ETag of a brand draft at `revision`: never the same as a published version's (`"3"`), so an ETag
 * of one sent to the other is refused rather than matched by accident.
 */
export function draftEtag(revision: number): string {
  return `"draft-${String(revision)}"`;
}

/** One change inside a section, as RFC 6902 paths name it: `before` absent for an add, `after` for a remove. */
export interface BrandChangeEntry {
  op: 'add' | 'remove' | 'replace' | 'move';
  path: string;
  before?: unknown;
  after?: unknown;
}

/** The changes of one section between two versions; sections without a change are left out. */
export interface BrandSectionDiff {
  section: BrandSection;
  changes: BrandChangeEntry[];
}

