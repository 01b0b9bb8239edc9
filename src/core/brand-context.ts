import { z } from 'zod';
import { parseInput, singleLine } from './inputs.js';

/**
 * The brand context object (docs/reading-brand-context.md "The brand context object"): what the read operation returns, and — minus
 * the server-set fields — the document that `brand import` and the management API accept. Every field is
 * always present in the output; empty values are "", [], {} or null, never missing. The console checks what
 * is typed with the same rules (web/src/brand/model.ts), so they are exported one by one;
 * src/contract/brand-context.ts names the object's schemas for the API reference. Below the schema, the
 * object's rules beyond its shape: parsing a document, settling its ids, serializing the result.
 */

/*
 * Normalizations are overwrites, not transforms: response schemas are serialized with zod's encode
 * (fastify-type-provider-zod), which throws on a one-way `.transform()`.
 */
export const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;
export const NETWORK_NAME = /^[a-z][a-z0-9_-]{0,31}$/;
export const PREFERENCE_NAME = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
export const FONT_WEIGHTS = { min: 1, max: 1000 } as const;

const hexColor = z.string().regex(HEX_COLOR, 'must be a #RRGGBB color').toUpperCase();
export const httpsUrlSchema = z
  .url({ protocol: /^https$/, error: 'must be an absolute https URL' })
  .max(2048);
const isoTimestamp = z.iso.datetime({ offset: false }).overwrite((value) => {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
});
const entryId = (prefix: string) =>
  z
    .string()
    .regex(
      new RegExp(`^${prefix}_[0-9A-Za-z]{1,40}$`),
      `must look like ${prefix}_ followed by letters and digits`,
    );
const text = (max: number) => z.string().max(max);
const nullableText = (max: number) => z.string().max(max).nullable().default(null);

const colorsSchema = z.strictObject({
  primary: hexColor.nullable().default(null),
  secondary: hexColor.nullable().default(null),
  accent: hexColor.nullable().default(null),
  background: hexColor.nullable().default(null),
  text: hexColor.nullable().default(null),
  palette: z
    .array(z.strictObject({ name: text(100), hex: hexColor, role: nullableText(50) }))
    .max(100)
    .default([]),
});
/** The colors a brand names by role, in the documented order. */
export const COLOR_ROLES = colorsSchema.keyof().exclude(['palette']).options;
export type ColorRole = (typeof COLOR_ROLES)[number];

export const FONT_SOURCES = ['google', 'adobe', 'system', 'custom'] as const;
const fontSchema = z.strictObject({
  family: text(200).min(1),
  weights: z.array(z.number().int().min(FONT_WEIGHTS.min).max(FONT_WEIGHTS.max)).max(20).default([]),
  fallback: z.array(text(200)).max(20).default([]),
  source: z.enum(FONT_SOURCES).default('system'),
  url: httpsUrlSchema.nullable().default(null),
});

const fontsSchema = z.strictObject({
  heading: fontSchema.nullable().default(null),
  body: fontSchema.nullable().default(null),
});
/** The font slots of a brand, in the documented order. */
export const FONT_SLOTS = fontsSchema.keyof().options;

const socialSchema = z
  .record(z.string().regex(NETWORK_NAME, 'network names are lowercase, e.g. "instagram"'), httpsUrlSchema)
  .refine((networks) => Object.keys(networks).length <= 50, 'at most 50 networks');

export const KNOWLEDGE_KINDS = ['fact', 'guideline', 'reference'] as const;
const knowledgeEntrySchema = z.strictObject({
  id: entryId('kb').optional(),
  kind: z.enum(KNOWLEDGE_KINDS),
  title: text(300).min(1),
  content: text(20_000),
  tags: z.array(text(50).min(1)).max(30).default([]),
  updated_at: isoTimestamp.optional(),
});

export const ASSET_KINDS = ['logo', 'icon', 'image', 'other'] as const;
const dimension = z.number().int().min(0).nullable().default(null);
const assetSchema = z.strictObject({
  id: entryId('as').optional(),
  kind: z.enum(ASSET_KINDS),
  name: text(300).min(1),
  url: httpsUrlSchema,
  mime_type: nullableText(255),
  width: dimension,
  height: dimension,
  bytes: dimension,
  variant: nullableText(100),
  background: nullableText(100),
  alt: text(1000).default(''),
});

const skillSchema = z.strictObject({
  id: entryId('sk').optional(),
  name: text(200).min(1),
  description: text(2000).default(''),
  instructions: text(20_000).default(''),
});

const preferenceValue = z.union([
  z.string().max(5000),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(text(500)).max(100),
]);
const preferencesSchema = z
  .record(z.string().regex(PREFERENCE_NAME, 'preference names are identifiers'), preferenceValue)
  .refine((prefs) => Object.keys(prefs).length <= 100, 'at most 100 preferences');

/**
 * Brand rules (docs/brand-check.md): what copy must and must not do, checked by the on-brand check
 * (src/core/brand-check.ts). Each kind has its own `value`; `message` is what a finding says (a default is
 * written from the rule when it is empty).
 */
export const RULE_KINDS = [
  'banned_term',
  'preferred_term',
  'required_phrase',
  'max_exclamations',
  'max_emoji',
  'palette_only',
  'fonts_only',
] as const;
export type RuleKind = (typeof RULE_KINDS)[number];
export const RULE_SEVERITIES = ['error', 'warning'] as const;

const term = singleLine(text(200).trim().min(1));
const count = z.number().int().min(0).max(1000);
/**
 * The rules' schema with `id` as given: optional in the document, required in the brand context object. The
 * kinds are one discriminated union either way, so that the API reference describes one closed object per kind.
 */
function rulesUnion<I extends z.ZodType>(id: I) {
  /** One kind of rule, its keys in the documented order: id, kind, value, message, severity. */
  const rule = <K extends RuleKind, V extends z.ZodType>(kind: K, value: V) =>
    z.strictObject({
      id,
      kind: z.literal(kind),
      value,
      message: singleLine(text(500)).default(''),
      severity: z.enum(RULE_SEVERITIES).default('error'),
    });
  return z.discriminatedUnion(
    'kind',
    [
      rule('banned_term', term),
      rule('preferred_term', z.strictObject({ use: term, instead_of: z.array(term).min(1).max(20) })),
      rule('required_phrase', singleLine(text(500).trim().min(1))),
      rule('max_exclamations', count),
      rule('max_emoji', count),
      // The brand's own colors and fonts are the allowed ones: these kinds need no value.
      rule('palette_only', z.null().default(null)),
      rule('fonts_only', z.null().default(null)),
    ],
    {
      // zod's "Invalid discriminator value" in the words of the other field errors (src/core/zod-messages.ts);
      // a rule that is not an object at all is said to be one by the usual message.
      error: (issue) =>
        typeof issue.input === 'object' && issue.input !== null
          ? `must be one of ${RULE_KINDS.map((kind) => JSON.stringify(kind)).join(', ')}`
          : undefined,
    },
  );
}
const ruleSchema = rulesUnion(entryId('rl').optional());

function uniqueIds(entries: readonly { id?: string | undefined }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  entries.forEach((entry, index) => {
    if (entry.id === undefined) return;
    if (seen.has(entry.id))
      ctx.addIssue({ code: 'custom', message: `duplicate id ${entry.id}`, path: [index, 'id'] });
    seen.add(entry.id);
  });
}

/**
 * The brand document a client writes. An exported brand context is accepted as it is (its server-set
 * `workspace_id`, `updated_at` and `version` are ignored), so export → import round-trips.
 */
export const brandDocumentSchema = z
  .strictObject({
    // The workspace's name too: one line, as every name (src/core/inputs.ts).
    name: singleLine(text(200).trim().min(1)),
    description: text(5000).default(''),
    voice: text(20_000).default(''),
    colors: colorsSchema.default(() => colorsSchema.parse({})),
    fonts: fontsSchema.default(() => fontsSchema.parse({})),
    social: socialSchema.default({}),
    knowledge: z.array(knowledgeEntrySchema).max(1000).default([]).superRefine(uniqueIds),
    assets: z.array(assetSchema).max(500).default([]).superRefine(uniqueIds),
    skills: z.array(skillSchema).max(200).default([]).superRefine(uniqueIds),
    preferences: preferencesSchema.default({}),
    rules: z.array(ruleSchema).max(200).default([]).superRefine(uniqueIds),
    workspace_id: z.string().optional(),
    updated_at: z.string().optional(),
    version: z.number().optional(),
  })
  .transform(({ workspace_id: _w, updated_at: _u, version: _v, ...document }) => document);

/**
 * The read operation's 200 body, also the management API's: the document's own pieces, with ids and
 * timestamps settled and the server-set fields added.
 */
export const brandContextObjectSchema = z.object({
  workspace_id: z.string(),
  name: z.string(),
  description: z.string(),
  voice: z.string(),
  colors: colorsSchema,
  fonts: fontsSchema,
  social: socialSchema,
  knowledge: z.array(knowledgeEntrySchema.required()),
  assets: z.array(assetSchema.required()),
  skills: z.array(skillSchema.required()),
  preferences: preferencesSchema,
  rules: z.array(rulesUnion(entryId('rl'))),
  updated_at: z.string(),
  version: z.number().int(),
});

export type BrandDocumentInput = z.input<typeof brandDocumentSchema>;
export type BrandDocument = z.output<typeof brandDocumentSchema>;
export type BrandContext = z.output<typeof brandContextObjectSchema>;
export type Colors = BrandContext['colors'];
export type Font = NonNullable<BrandContext['fonts']['heading']>;
export type KnowledgeEntry = BrandContext['knowledge'][number];
export type Asset = BrandContext['assets'][number];
export type Skill = BrandContext['skills'][number];
export type PreferenceValue = z.output<typeof preferenceValue>;
export type BrandRule = BrandContext['rules'][number];

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
  'rules',
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
    rules: context.rules,
    updated_at: context.updated_at,
    version: context.version,
  };
  return JSON.stringify(ordered);
}

/** A brand with no content yet, as a new workspace starts. */
export function emptyBrand(): Omit<BrandContext, 'workspace_id' | 'name' | 'updated_at' | 'version'> {
  const { name: _name, ...empty } = brandDocumentSchema.parse({ name: 'empty' });
  return { ...empty, knowledge: [], assets: [], skills: [], rules: [] };
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
  previous: Pick<BrandContext, 'knowledge' | 'assets' | 'skills' | 'rules'> | undefined,
  now: string,
  newEntryId: (prefix: 'kb' | 'as' | 'sk' | 'rl') => string,
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
    rules: settleIds(document.rules, previous?.rules ?? [], () => newEntryId('rl')).map(
      ({ id, ...rule }) => ({ id, ...rule }),
    ),
  };
}
