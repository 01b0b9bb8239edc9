import { type BrandContext, type BrandDocument, brandDocumentSchema } from '../contract/brand-context.js';
import { parseInput } from './inputs.js';

/**
 * The rules of the brand context object (docs/reading-brand-context.md "The brand context object") beyond its shape, which
 * src/contract/brand-context.ts defines: parsing a document, settling its ids, serializing the result.
 */
export type {
  Asset,
  BrandContext,
  BrandDocument,
  BrandDocumentInput,
  KnowledgeEntry,
  Skill,
} from '../contract/brand-context.js';

/** `input` as a brand document, or `invalid_request` naming every offending field. */
export function parseBrandDocument(input: unknown): BrandDocument {
  return parseInput(brandDocumentSchema, input, '', 'The brand document is invalid');
}

/** The brand's own sections, in the documented order: all of the object but its server-set fields. */
export const BRAND_SECTIONS = [
  'name',
  'description',
  'voice',
  'colors',
  'fonts',
  'social',
  'knowledge',
  'assets',
  'skills',
  'preferences',
] as const satisfies readonly Exclude<keyof BrandContext, 'workspace_id' | 'updated_at' | 'version'>[];
export type BrandSection = (typeof BRAND_SECTIONS)[number];

/**
 * Serializes a brand context with its keys in the documented order, so that clients (and ETags) see the
 * same bytes for the same brand.
 */
export function serializeBrandContext(context: BrandContext): string {
  const ordered: BrandContext = {
    workspace_id: context.workspace_id,
    name: context.name,
    description: context.description,
    voice: context.voice,
    colors: context.colors,
    fonts: context.fonts,
    social: context.social,
    knowledge: context.knowledge,
    assets: context.assets,
    skills: context.skills,
    preferences: context.preferences,
    updated_at: context.updated_at,
    version: context.version,
  };
  return JSON.stringify(ordered);
}

/** A brand with no content yet, as a new workspace starts. */
export function emptyBrand(): Omit<BrandContext, 'workspace_id' | 'name' | 'updated_at' | 'version'> {
  const { name: _name, ...empty } = brandDocumentSchema.parse({ name: 'empty' });
  return { ...empty, knowledge: [], assets: [], skills: [] };
}

/** An entry's content, without its id and timestamp: what "the same entry" means when no id is sent. */
function contentKey(entry: object): string {
  const { id: _id, updated_at: _at, ...content } = entry as { id?: unknown; updated_at?: unknown };
  return JSON.stringify(content);
}

/**
 * Settles the ids of one list of entries. An entry sent without an id takes the id of an unclaimed previous
 * entry with the same content, so sending the same document twice changes nothing; otherwise a new id.
 */
function settleIds<T extends { id?: string | undefined; updated_at?: string | undefined }>(
  entries: readonly T[],
  previous: readonly { id: string }[],
  newId: () => string,
): (T & { id: string })[] {
  const claimed = new Set(entries.flatMap((entry) => (entry.id === undefined ? [] : [entry.id])));
  const unclaimed = previous.filter((entry) => !claimed.has(entry.id));
  return entries.map((entry) => {
    if (entry.id !== undefined) return { ...entry, id: entry.id };
    const key = contentKey(entry);
    const index = unclaimed.findIndex((candidate) => contentKey(candidate) === key);
    const id = index === -1 ? newId() : (unclaimed.splice(index, 1)[0]?.id ?? newId());
    return { ...entry, id };
  });
}

/**
 * Gives every entry an id (see `settleIds`) and every knowledge entry an `updated_at`: a supplied timestamp
 * is kept (so an import preserves history); otherwise an unchanged entry keeps its previous one and a new
 * or edited entry gets `now`.
 */
export function settleBrandDocument(
  document: BrandDocument,
  previous: Pick<BrandContext, 'knowledge' | 'assets' | 'skills'> | undefined,
  now: string,
  newEntryId: (prefix: 'kb' | 'as' | 'sk') => string,
): Omit<BrandContext, 'workspace_id' | 'updated_at' | 'version'> {
  const before = new Map(previous?.knowledge.map((entry) => [entry.id, entry]));
  const knowledge = settleIds(document.knowledge, previous?.knowledge ?? [], () => newEntryId('kb'));
  return {
    ...document,
    knowledge: knowledge.map(({ id, updated_at, ...entry }) => {
      const old = before.get(id);
      const keep = old !== undefined && contentKey(old) === contentKey(entry) ? old.updated_at : now;
      return { id, ...entry, updated_at: updated_at ?? keep };
    }),
    assets: settleIds(document.assets, previous?.assets ?? [], () => newEntryId('as')).map(
      ({ id, ...asset }) => ({ id, ...asset }),
    ),
    skills: settleIds(document.skills, previous?.skills ?? [], () => newEntryId('sk')).map(
      ({ id, ...skill }) => ({ id, ...skill }),
    ),
  };
}
