import {
  BRAND_SECTIONS,
  type BrandContext,
  type BrandSection,
  serializeBrandContext,
} from './brand-context.js';
import { brandDesignTokens } from './brand-dtcg.js';
import { brandMarkdown } from './brand-markdown.js';

/** The renderings of a brand the read operation offers (src/contract/brand-views.ts, its `format`). */
export const BRAND_FORMATS = ['json', 'markdown', 'dtcg'] as const;
export type BrandFormat = (typeof BRAND_FORMATS)[number];

/** The sections a design-token file can carry: the rest of a brand is not a design token. */
export const DTCG_SECTIONS = ['colors', 'fonts'] as const satisfies readonly BrandSection[];

/**
 * A view of a brand: one rendering of some of its sections (docs/reading-brand-context.md "Formats and sections"). Views are
 * settled from the read operation's options so that requests asking the same thing in other words (another
 * order, a repeated section, a tag in capitals) share one `key`, hence one rendering in the cache and one
 * ETag.
 */
export interface BrandView {
  format: BrandFormat;
  /** In the documented order; every section of the format when none were asked. */
  sections: readonly BrandSection[];
  /** Only knowledge entries of these kinds; null for every kind. */
  kinds: ReadonlySet<string> | null;
  /** Only knowledge entries carrying one of these tags (lower-cased); null for every entry. */
  tags: ReadonlySet<string> | null;
  /** Names the view: equal keys, equal renderings of the same brand. */
  key: string;
}

/** The options as the read operation's body carries them, already checked against their schema. */
export interface BrandViewRequest {
  format?: BrandFormat | undefined;
  sections?: readonly BrandSection[] | undefined;
  knowledge_kinds?: readonly string[] | undefined;
  knowledge_tags?: readonly string[] | undefined;
}

/** What a rendering is served as. */
export const VIEW_CONTENT_TYPES: Record<BrandFormat, string> = {
  json: 'application/json; charset=utf-8',
  markdown: 'text/markdown; charset=utf-8',
  dtcg: 'application/design-tokens+json; charset=utf-8',
};

function sortedSet(values: readonly string[] | undefined): ReadonlySet<string> | null {
  return values === undefined ? null : new Set([...new Set(values)].sort());
}

/** Each format's whole brand, unfiltered: one constant per format, so the usual reads build no view. */
const WHOLE_VIEWS: Record<BrandFormat, BrandView> = {
  json: { format: 'json', sections: BRAND_SECTIONS, kinds: null, tags: null, key: 'json' },
  markdown: { format: 'markdown', sections: BRAND_SECTIONS, kinds: null, tags: null, key: 'markdown' },
  dtcg: { format: 'dtcg', sections: DTCG_SECTIONS, kinds: null, tags: null, key: 'dtcg' },
};

/** The whole brand as JSON: the operation's answer when no option is sent. */
export const WHOLE_BRAND_JSON: BrandView = WHOLE_VIEWS.json;

/**
 * The view a request's options name. Fields other than the options (the body's `action`, `workspace_id`) are
 * ignored, so the read operation passes its body as it is.
 */
export function brandView(request: BrandViewRequest): BrandView {
  const format = request.format ?? 'json';
  // The usual bodies name no option but perhaps a format: answered without building a key.
  if (
    request.sections === undefined &&
    request.knowledge_kinds === undefined &&
    request.knowledge_tags === undefined
  )
    return WHOLE_VIEWS[format];
  const all = WHOLE_VIEWS[format].sections;
  const named = new Set(request.sections ?? all);
  // Every section of the format named is the same view as none named: one key, one ETag, one cache entry.
  const asked = all.every((section) => named.has(section)) ? null : named;
  const sections = asked === null ? all : all.filter((section) => asked.has(section));
  const kinds = sortedSet(request.knowledge_kinds);
  const tags = sortedSet(request.knowledge_tags?.map((tag) => tag.trim().toLowerCase()));
  if (asked === null && kinds === null && tags === null) return WHOLE_VIEWS[format];
  const key = [
    format,
    asked === null ? '*' : sections.join(','),
    kinds === null ? '*' : [...kinds].join(','),
    tags === null ? '*' : JSON.stringify([...tags]),
  ].join('|');
  return { format, sections, kinds, tags, key };
}

/** The knowledge entries a view keeps, in the brand's order. */
export function viewKnowledge(
  knowledge: BrandContext['knowledge'],
  view: Pick<BrandView, 'kinds' | 'tags'>,
): BrandContext['knowledge'] {
  const { kinds, tags } = view;
  if (kinds === null && tags === null) return knowledge;
  return knowledge.filter(
    (entry) =>
      (kinds === null || kinds.has(entry.kind)) &&
      (tags === null || entry.tags.some((tag) => tags.has(tag.trim().toLowerCase()))),
  );
}

/**
 * The view's sections of a brand as the JSON body: the identifying fields (workspace_id, updated_at, version)
 * always, the sections in the documented order between them.
 */
export function viewJson(context: BrandContext, view: BrandView): string {
  if (view === WHOLE_BRAND_JSON) return serializeBrandContext(context);
  const picked: Record<string, unknown> = { workspace_id: context.workspace_id };
  for (const section of view.sections)
    picked[section] = section === 'knowledge' ? viewKnowledge(context.knowledge, view) : context[section];
  picked.updated_at = context.updated_at;
  picked.version = context.version;
  return JSON.stringify(picked);
}

/** A brand rendered as a view: the bytes to serve (before encoding) and their type. */
export function renderBrandView(
  context: BrandContext,
  view: BrandView,
): { text: string; contentType: string } {
  const contentType = VIEW_CONTENT_TYPES[view.format];
  switch (view.format) {
    case 'json':
      return { text: viewJson(context, view), contentType };
    case 'markdown':
      return {
        text: brandMarkdown(context, {
          sections: view.sections,
          knowledge: viewKnowledge(context.knowledge, view),
          everySection: view.sections === BRAND_SECTIONS,
          filtered: view.kinds !== null || view.tags !== null,
        }),
        contentType,
      };
    case 'dtcg':
      return { text: `${JSON.stringify(brandDesignTokens(context, view.sections), null, 2)}\n`, contentType };
  }
}
