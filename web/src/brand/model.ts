import {
  type Asset,
  type BrandContext,
  COLOR_ROLES,
  type ColorRole,
  type Font,
  FONT_SLOTS,
  FONT_WEIGHTS,
  HEX_COLOR,
  httpsUrlSchema,
  type KnowledgeEntry,
  NETWORK_NAME,
  PREFERENCE_NAME,
  type PreferenceValue,
  type BrandRule,
  type RuleKind,
  type Skill,
} from '../../../src/core/brand-context';

/**
 * The brand as the editor holds it: every value as the text its input shows, and every list row with a
 * stable React key. `toDocument` turns it into the PUT body; `validate` checks what is typed with the
 * brand context object's rules (src/core/brand-context.ts).
 */

let nextRowKey = 0;
/** A key for a new list row, so React keeps each row's inputs (and focus) when rows move. */
export function rowKey(): string {
  nextRowKey += 1;
  return `row-${String(nextRowKey)}`;
}

interface PaletteRow {
  key: string;
  name: string;
  hex: string;
  role: string;
}

export interface FontForm {
  family: string;
  weights: string;
  fallback: string;
  source: Font['source'];
  url: string;
}

export interface SocialRow {
  key: string;
  network: string;
  url: string;
}

export interface KnowledgeRow {
  key: string;
  id: string | undefined;
  kind: KnowledgeEntry['kind'];
  title: string;
  content: string;
  tags: string;
}

export interface AssetRow {
  key: string;
  id: string | undefined;
  kind: Asset['kind'];
  name: string;
  url: string;
  mime_type: string;
  width: string;
  height: string;
  bytes: string;
  variant: string;
  background: string;
  alt: string;
}

export interface SkillRow {
  key: string;
  id: string | undefined;
  name: string;
  description: string;
  instructions: string;
}

export const PREFERENCE_TYPES = ['text', 'number', 'boolean', 'list', 'none'] as const;
export type PreferenceType = (typeof PREFERENCE_TYPES)[number];

export interface PreferenceRow {
  key: string;
  name: string;
  type: PreferenceType;
  /** Text as typed; a list has one item per line, a boolean is "true" or "false". */
  value: string;
}

/**
 * A rule as its form holds it (docs/brand-check.md "Rules"): `value` is the term, phrase or number as typed
 * (for a preferred term, the word to use); `insteadOf` the words it replaces, one per line.
 */
export interface RuleRow {
  key: string;
  id: string | undefined;
  kind: RuleKind;
  severity: BrandRule['severity'];
  value: string;
  insteadOf: string;
  message: string;
}

export interface BrandForm {
  name: string;
  description: string;
  voice: string;
  colors: Record<ColorRole, string>;
  palette: PaletteRow[];
  fonts: { heading: FontForm; body: FontForm };
  social: SocialRow[];
  knowledge: KnowledgeRow[];
  assets: AssetRow[];
  skills: SkillRow[];
  preferences: PreferenceRow[];
  rules: RuleRow[];
}

const list = (items: readonly (string | number)[], separator = ', ') => items.map(String).join(separator);
const orEmpty = (value: string | number | null) => (value === null ? '' : String(value));

function fontForm(font: Font | null): FontForm {
  if (font === null) return { family: '', weights: '', fallback: '', source: 'system', url: '' };
  return {
    family: font.family,
    weights: list(font.weights),
    fallback: list(font.fallback),
    source: font.source,
    url: orEmpty(font.url),
  };
}

function preferenceRow(name: string, value: PreferenceValue): PreferenceRow {
  const key = rowKey();
  if (value === null) return { key, name, type: 'none', value: '' };
  if (Array.isArray(value)) return { key, name, type: 'list', value: list(value, '\n') };
  if (typeof value === 'number') return { key, name, type: 'number', value: String(value) };
  if (typeof value === 'boolean') return { key, name, type: 'boolean', value: String(value) };
  return { key, name, type: 'text', value };
}

function ruleRow(rule: BrandRule): RuleRow {
  const row = { key: rowKey(), id: rule.id, kind: rule.kind, severity: rule.severity, message: rule.message };
  switch (rule.kind) {
    case 'preferred_term':
      return { ...row, value: rule.value.use, insteadOf: list(rule.value.instead_of, '\n') };
    case 'banned_term':
    case 'required_phrase':
      return { ...row, value: rule.value, insteadOf: '' };
    case 'max_exclamations':
    case 'max_emoji':
      return { ...row, value: String(rule.value), insteadOf: '' };
    case 'palette_only':
    case 'fonts_only':
      return { ...row, value: '', insteadOf: '' };
  }
}

export function toForm(brand: BrandContext): BrandForm {
  return {
    name: brand.name,
    description: brand.description,
    voice: brand.voice,
    colors: {
      primary: orEmpty(brand.colors.primary),
      secondary: orEmpty(brand.colors.secondary),
      accent: orEmpty(brand.colors.accent),
      background: orEmpty(brand.colors.background),
      text: orEmpty(brand.colors.text),
    },
    palette: brand.colors.palette.map((entry) => ({
      key: rowKey(),
      name: entry.name,
      hex: entry.hex,
      role: orEmpty(entry.role),
    })),
    fonts: { heading: fontForm(brand.fonts.heading), body: fontForm(brand.fonts.body) },
    social: Object.entries(brand.social).map(([network, url]) => ({ key: rowKey(), network, url })),
    knowledge: brand.knowledge.map((entry) => ({
      key: rowKey(),
      id: entry.id,
      kind: entry.kind,
      title: entry.title,
      content: entry.content,
      tags: list(entry.tags),
    })),
    assets: brand.assets.map((asset) => ({
      key: rowKey(),
      id: asset.id,
      kind: asset.kind,
      name: asset.name,
      url: asset.url,
      mime_type: orEmpty(asset.mime_type),
      width: orEmpty(asset.width),
      height: orEmpty(asset.height),
      bytes: orEmpty(asset.bytes),
      variant: orEmpty(asset.variant),
      background: orEmpty(asset.background),
      alt: asset.alt,
    })),
    skills: brand.skills.map((skill) => ({ key: rowKey(), ...skill })),
    preferences: Object.entries(brand.preferences).map(([name, value]) => preferenceRow(name, value)),
    rules: brand.rules.map(ruleRow),
  };
}

/**
 * The brand document (the PUT body). Entries go without `updated_at`, so that edited ones get a new one.
 * A number field holds text when what was typed is not a number: sent as it is, the service names the field.
 */
export interface BrandDocument {
  name: string;
  description: string;
  voice: string;
  colors: BrandContext['colors'];
  fonts: { heading: DocumentFont | null; body: DocumentFont | null };
  social: Record<string, string>;
  knowledge: (Omit<KnowledgeEntry, 'id' | 'updated_at'> & { id?: string })[];
  assets: DocumentAsset[];
  skills: (Omit<Skill, 'id'> & { id?: string })[];
  preferences: Record<string, PreferenceValue>;
  rules: DocumentRule[];
}

/** A rule as the PUT body sends it: a count as typed when it is not a number, for the service to name. */
export type DocumentRule = { id?: string; message: string; severity: BrandRule['severity'] } & (
  | { kind: 'banned_term' | 'required_phrase'; value: string }
  | { kind: 'preferred_term'; value: { use: string; instead_of: string[] } }
  | { kind: 'max_exclamations' | 'max_emoji'; value: number | string }
  | { kind: 'palette_only' | 'fonts_only'; value: null }
);

type DocumentFont = Omit<Font, 'weights'> & { weights: (number | string)[] };
type Dimension = number | string | null;
type DocumentAsset = Omit<Asset, 'id' | 'width' | 'height' | 'bytes'> & {
  id?: string;
  width: Dimension;
  height: Dimension;
  bytes: Dimension;
};

const splitList = (text: string, separator: string | RegExp = ',') =>
  text
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
const orNull = (text: string) => (text.trim() === '' ? null : text.trim());
function numberOrText(text: string): number | string {
  const number = Number(text.trim());
  return text.trim() !== '' && Number.isFinite(number) ? number : text;
}
const dimension = (text: string) => (text.trim() === '' ? null : numberOrText(text));
const hex = (text: string) => (text.trim() === '' ? null : text.trim().toUpperCase());
const withId = <T extends object>(id: string | undefined, entry: T) =>
  id === undefined ? entry : { id, ...entry };

function fontOf(form: FontForm): DocumentFont | null {
  const untouched = form.family.trim() === '' && form.weights.trim() === '' && form.fallback.trim() === '';
  if (untouched && form.url.trim() === '') return null;
  return {
    family: form.family.trim(),
    weights: splitList(form.weights).map(numberOrText),
    fallback: splitList(form.fallback),
    source: form.source,
    url: orNull(form.url),
  };
}

function preferenceValue(row: PreferenceRow): PreferenceValue {
  switch (row.type) {
    case 'none':
      return null;
    case 'number':
      return numberOrText(row.value);
    case 'boolean':
      return row.value === 'true';
    case 'list':
      return splitList(row.value, '\n');
    case 'text':
      return row.value;
  }
}

function ruleOf(row: RuleRow): DocumentRule {
  const common = { message: row.message.trim(), severity: row.severity };
  const rule = ((): DocumentRule => {
    switch (row.kind) {
      case 'preferred_term':
        return {
          ...common,
          kind: row.kind,
          value: { use: row.value.trim(), instead_of: splitList(row.insteadOf, '\n') },
        };
      case 'banned_term':
      case 'required_phrase':
        return { ...common, kind: row.kind, value: row.value.trim() };
      case 'max_exclamations':
      case 'max_emoji':
        return { ...common, kind: row.kind, value: numberOrText(row.value) };
      case 'palette_only':
      case 'fonts_only':
        return { ...common, kind: row.kind, value: null };
    }
  })();
  return withId(row.id, rule);
}

export function toDocument(form: BrandForm): BrandDocument {
  return {
    name: form.name.trim(),
    description: form.description,
    voice: form.voice,
    colors: {
      primary: hex(form.colors.primary),
      secondary: hex(form.colors.secondary),
      accent: hex(form.colors.accent),
      background: hex(form.colors.background),
      text: hex(form.colors.text),
      palette: form.palette.map((row) => ({
        name: row.name,
        hex: row.hex.trim().toUpperCase(),
        role: orNull(row.role),
      })),
    },
    fonts: { heading: fontOf(form.fonts.heading), body: fontOf(form.fonts.body) },
    social: Object.fromEntries(
      form.social
        .filter((row) => row.network.trim() !== '' || row.url.trim() !== '')
        .map((row) => [row.network.trim(), row.url.trim()]),
    ),
    knowledge: form.knowledge.map((row) =>
      withId(row.id, { kind: row.kind, title: row.title, content: row.content, tags: splitList(row.tags) }),
    ),
    assets: form.assets.map((row) =>
      withId(row.id, {
        kind: row.kind,
        name: row.name,
        url: row.url.trim(),
        mime_type: orNull(row.mime_type),
        width: dimension(row.width),
        height: dimension(row.height),
        bytes: dimension(row.bytes),
        variant: orNull(row.variant),
        background: orNull(row.background),
        alt: row.alt,
      }),
    ),
    skills: form.skills.map((row) =>
      withId(row.id, { name: row.name, description: row.description, instructions: row.instructions }),
    ),
    preferences: Object.fromEntries(
      form.preferences
        .filter((row) => row.name.trim() !== '' || row.value.trim() !== '')
        .map((row) => [row.name.trim(), preferenceValue(row)]),
    ),
    rules: form.rules.map(ruleOf),
  };
}

/** The editor's sections, in order, and the fields of the document each one edits. */
export const SECTION_FIELDS = {
  basics: ['name', 'description'],
  voice: ['voice'],
  colors: ['colors'],
  fonts: ['fonts'],
  social: ['social'],
  knowledge: ['knowledge'],
  assets: ['assets'],
  skills: ['skills'],
  preferences: ['preferences'],
  rules: ['rules'],
} as const satisfies Record<string, readonly (keyof BrandDocument)[]>;
export type SectionId = keyof typeof SECTION_FIELDS;

/**
 * The sections in which two documents differ, in the editor's order: what a save refused with 412 would
 * have replaced in the brand someone else saved (both made by toDocument, so equal content is equal JSON).
 */
export function sectionsThatDiffer(mine: BrandDocument, theirs: BrandDocument): SectionId[] {
  return (Object.keys(SECTION_FIELDS) as SectionId[]).filter((section) =>
    SECTION_FIELDS[section].some((field) => JSON.stringify(mine[field]) !== JSON.stringify(theirs[field])),
  );
}

const HEX_HINT = 'Use #RRGGBB, e.g. #6B3E26.';

function httpsUrlIssue(text: string): string | undefined {
  if (httpsUrlSchema.safeParse(text.trim()).success) return undefined;
  return URL.canParse(text.trim())
    ? 'Use an https:// address.'
    : 'Use a full address, e.g. https://example.com/logo.svg.';
}

function duplicates(names: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
  }
  return repeated;
}

/**
 * What is wrong with what has been typed, by field path (the service's paths where it has one;
 * `social[i].network` and `preferences[i].name` name the rows' name inputs): the service's rules, said
 * earlier. Fields left empty are not flagged while typing (a new row would light up at once); the service
 * stays the judge, and Save sends whatever is there.
 */
export function validate(form: BrandForm): Map<string, string> {
  const issues = new Map<string, string>();
  const add = (path: string, issue: string | undefined) => {
    if (issue !== undefined) issues.set(path, issue);
  };
  const blank = (text: string) => text.trim() === '';

  for (const role of COLOR_ROLES) {
    const value = form.colors[role];
    if (!blank(value) && !HEX_COLOR.test(value.trim())) add(`colors.${role}`, HEX_HINT);
  }
  form.palette.forEach((row, index) => {
    if (!blank(row.hex) && !HEX_COLOR.test(row.hex.trim()))
      add(`colors.palette[${String(index)}].hex`, HEX_HINT);
  });
  for (const slot of FONT_SLOTS) {
    const font = form.fonts[slot];
    const used = fontOf(font) !== null;
    if (used && blank(font.family)) add(`fonts.${slot}.family`, 'Name the font family, or clear this font.');
    const weights = splitList(font.weights);
    const { min, max } = FONT_WEIGHTS;
    if (!weights.every((item) => /^\d+$/.test(item) && Number(item) >= min && Number(item) <= max))
      add(`fonts.${slot}.weights`, `Use whole numbers from ${min} to ${max}, separated by commas.`);
    if (!blank(font.url)) add(`fonts.${slot}.url`, httpsUrlIssue(font.url));
  }
  const repeatedNetworks = duplicates(form.social.map((row) => row.network.trim()));
  form.social.forEach((row, index) => {
    const network = row.network.trim();
    if (blank(network) && blank(row.url)) return;
    if (!NETWORK_NAME.test(network))
      add(`social[${String(index)}].network`, 'Use lowercase letters, digits, - or _, e.g. instagram.');
    else if (repeatedNetworks.has(network))
      add(`social[${String(index)}].network`, 'This network is listed twice.');
    add(`social.${network}`, httpsUrlIssue(row.url));
  });
  form.assets.forEach((row, index) => {
    const at = `assets[${String(index)}]`;
    if (!blank(row.url)) add(`${at}.url`, httpsUrlIssue(row.url));
    for (const field of ['width', 'height', 'bytes'] as const) {
      if (!blank(row[field]) && !/^\d+$/.test(row[field].trim()))
        add(`${at}.${field}`, 'Use a whole number, or leave it empty.');
    }
  });
  const repeatedPreferences = duplicates(form.preferences.map((row) => row.name.trim()));
  form.preferences.forEach((row, index) => {
    const name = row.name.trim();
    if (blank(name) && blank(row.value)) return;
    if (!PREFERENCE_NAME.test(name))
      add(`preferences[${String(index)}].name`, 'Start with a letter; then letters, digits, _ . or -.');
    else if (repeatedPreferences.has(name))
      add(`preferences[${String(index)}].name`, 'This preference is listed twice.');
    if (row.type === 'number' && typeof numberOrText(row.value) !== 'number')
      add(`preferences.${name}`, 'Use a number.');
  });
  form.rules.forEach((row, index) => {
    const at = `rules[${String(index)}].value`;
    if (row.kind === 'max_exclamations' || row.kind === 'max_emoji') {
      if (!blank(row.value) && !/^\d+$/.test(row.value.trim())) add(at, 'Use a whole number, 0 or more.');
    } else if (row.kind === 'preferred_term') {
      if (!blank(row.value) && /[\r\n]/.test(row.value)) add(`${at}.use`, 'Use one line.');
    }
  });
  return issues;
}
