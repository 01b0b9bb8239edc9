import { create, type ArrayDelta, type Delta } from 'jsondiffpatch';
import { BRAND_SECTIONS, type BrandContext, type BrandSection } from './brand-context.js';

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

/**
 * One change inside a section, as RFC 6902 paths name it: `before` absent for an add, `after` for a remove;
 * a move (a list entry that changed place) has `from`, where it was, and neither value.
 */
export interface BrandChangeEntry {
  op: 'add' | 'remove' | 'replace' | 'move';
  path: string;
  from?: string;
  before?: unknown;
  after?: unknown;
}

/** The changes of one section between two versions; sections without a change are left out. */
export interface BrandSectionDiff {
  section: BrandSection;
  changes: BrandChangeEntry[];
}

/** The changes between two versions of a brand, per section (docs/brand-versions.md "Diff"). */
export interface BrandVersionDiff {
  from: number;
  to: number;
  sections: BrandSectionDiff[];
}

/**
 * List entries are the same entry when they have the same id (knowledge, assets, skills), so an edited entry
 * is a change inside it and a reordered one a move; entries without an id (palette swatches) are the same
 * only when equal. Primitives (tags, weights) are compared by value by jsondiffpatch itself.
 */
function entryHash(item: object): string {
  const { id } = item as { id?: unknown };
  return typeof id === 'string' ? `id:${id}` : `json:${JSON.stringify(item)}`;
}

const differ = create({ objectHash: entryHash, arrays: { detectMove: true, includeValueOnMove: false } });

/** One reference token of a JSON Pointer (RFC 6901 §3). */
function pointerToken(token: string | number): string {
  return String(token).replaceAll('~', '~0').replaceAll('/', '~1');
}

function pointer(path: readonly (string | number)[]): string {
  return path.map((token) => `/${pointerToken(token)}`).join('');
}

function isArrayDelta(delta: object): delta is ArrayDelta {
  return (delta as { _t?: unknown })._t === 'a';
}

/**
 * The changes a jsondiffpatch delta describes, flattened to pointers from the brand root. In a list, a
 * removed entry's index is its place in the older version; an added, changed or moved entry's, in the newer.
 */
function collectChanges(delta: Delta, path: (string | number)[], into: BrandChangeEntry[]): void {
  if (delta === undefined) return;
  if (Array.isArray(delta)) {
    if (delta.length === 1) into.push({ op: 'add', path: pointer(path), after: delta[0] });
    else if (delta.length === 2)
      into.push({ op: 'replace', path: pointer(path), before: delta[0], after: delta[1] });
    else if (delta[2] === 0) into.push({ op: 'remove', path: pointer(path), before: delta[0] });
    // Text deltas (`[…, 0, 2]`) need the text-diff plugin, which is not loaded; moves are the list's below.
    return;
  }
  if (isArrayDelta(delta)) {
    const removedOrMoved: number[] = [];
    const atNewIndex: number[] = [];
    for (const key of Object.keys(delta)) {
      if (key === '_t') continue;
      if (key.startsWith('_')) removedOrMoved.push(Number(key.slice(1)));
      else atNewIndex.push(Number(key));
    }
    const ascending = (a: number, b: number) => a - b;
    for (const index of removedOrMoved.sort(ascending)) {
      const entry = delta[`_${String(index)}` as `_${number}`];
      if (entry === undefined) continue;
      if (entry[2] === 3) {
        into.push({ op: 'move', path: pointer([...path, entry[1]]), from: pointer([...path, index]) });
      } else into.push({ op: 'remove', path: pointer([...path, index]), before: entry[0] });
    }
    for (const index of atNewIndex.sort(ascending)) collectChanges(delta[index], [...path, index], into);
    return;
  }
  for (const [key, child] of Object.entries(delta)) collectChanges(child, [...path, key], into);
}

/**
 * The per-section changes from `before` to `after` (two versions' contents, or a version and a draft), as
 * jsondiffpatch finds them: only the sections that changed, in BRAND_SECTIONS order. Server-set fields
 * (`workspace_id`, `updated_at`, `version`) are not compared.
 */
export function diffBrandSections(
  before: Pick<BrandContext, BrandSection>,
  after: Pick<BrandContext, BrandSection>,
): BrandSectionDiff[] {
  const sections: BrandSectionDiff[] = [];
  for (const section of BRAND_SECTIONS) {
    const changes: BrandChangeEntry[] = [];
    collectChanges(differ.diff(before[section], after[section]), [section], changes);
    if (changes.length > 0) sections.push({ section, changes });
  }
  return sections;
}
