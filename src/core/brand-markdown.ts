import {
  type Asset,
  type BrandContext,
  type BrandRule,
  type BrandSection,
  COLOR_ROLES,
  type Font,
  FONT_SLOTS,
  KNOWLEDGE_KINDS,
  type KnowledgeEntry,
} from './brand-context.js';

/**
 * The brand as Markdown for a system prompt (docs/reading-brand-context.md "Formats and sections"): what a model needs to write
 * and design on brand, in as few tokens as it reads well — headings per section, colors as one short table,
 * a font per line, knowledge as terse bullets grouped by kind (guidelines first: they are the rules), and
 * no ids, timestamps or byte counts, which a prompt never uses.
 */

export interface MarkdownOptions {
  /** In the documented order. */
  sections: readonly BrandSection[];
  /** The knowledge entries to render (already filtered). */
  knowledge: readonly KnowledgeEntry[];
  /** The whole brand was asked: empty sections are left out rather than said to be empty. */
  everySection: boolean;
  /** A knowledge filter was sent: the knowledge section was asked for, and says when nothing matches. */
  filtered: boolean;
}

const KIND_ORDER = [
  'guideline',
  'fact',
  'reference',
] as const satisfies readonly (typeof KNOWLEDGE_KINDS)[number][];
const KIND_HEADINGS: Record<(typeof KNOWLEDGE_KINDS)[number], string> = {
  guideline: 'Guidelines',
  fact: 'Facts',
  reference: 'References',
};
const SECTION_HEADINGS: Record<Exclude<BrandSection, 'name' | 'description'>, string> = {
  voice: 'Voice',
  colors: 'Colors',
  fonts: 'Fonts',
  social: 'Social',
  knowledge: 'Knowledge',
  assets: 'Assets',
  skills: 'Skills',
  preferences: 'Preferences',
  rules: 'Rules',
};
const SOURCE_NAMES: Record<Font['source'], string> = {
  google: 'Google Fonts',
  adobe: 'Adobe Fonts',
  system: 'system font',
  custom: 'custom font',
};

/** Text on one line: headings, table cells and list items cannot hold a line break. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

const HEADING_LINE = /^ {0,3}(#{1,6}(\s|$)|=+\s*$|-+\s*$)/;
const FENCE_OPENING = /^ {0,3}(`{3,}(?!.*`)|~{3,})/;

/**
 * A brand's free text as lines that stay inside their section: a line that would read as a heading (`## …`,
 * or `===`/`---` under a line) is escaped and a code fence left open is closed, so that the text can neither
 * start a section of its own nor swallow the ones after it. Runs of blank lines collapse to one.
 */
function proseLines(text: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const raw of text.trim().split(/\r?\n/)) {
    let line = raw.trimEnd();
    if (line === '' && lines.at(-1) === '') continue;
    if (fence !== null) {
      const closing = line.trim();
      if (closing.startsWith(fence) && new Set(closing).size === 1) fence = null;
    } else {
      fence = FENCE_OPENING.exec(line)?.[1] ?? null;
      if (fence === null && HEADING_LINE.test(line)) line = line.replace(/^ */, '$&\\');
    }
    lines.push(line);
  }
  if (fence !== null) lines.push(fence);
  return lines;
}

/** Multi-line text as the body of a list item: continuation lines indented under the bullet. */
function itemText(text: string): string {
  return proseLines(text).join('\n  ');
}

function cell(text: string): string {
  return oneLine(text).replace(/\|/g, '\\|');
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function colorsMarkdown(colors: BrandContext['colors']): string[] {
  const rows: [string, string, string][] = [];
  const folded = new Set<number>();
  for (const role of COLOR_ROLES) {
    const hex = colors[role];
    if (hex === null) continue;
    // A palette entry of this role and value names the role's color rather than repeating it on a row.
    const named = colors.palette.findIndex((entry) => entry.hex === hex && entry.role === role);
    if (named !== -1) folded.add(named);
    rows.push([role, hex, named === -1 ? '' : (colors.palette[named]?.name ?? '')]);
  }
  // Any other palette entry is a palette color: its role, if any, said so that it never reads as a role row.
  colors.palette.forEach((entry, index) => {
    if (!folded.has(index))
      rows.push([entry.role === null ? 'palette' : `palette (role: ${entry.role})`, entry.hex, entry.name]);
  });
  if (rows.length === 0) return [];
  return [
    '| Use | Hex | Name |',
    '| --- | --- | --- |',
    ...rows.map(([use, hex, name]) => `| ${cell(use)} | ${hex} | ${cell(name)} |`),
  ];
}

function fontLine(slot: string, font: Font): string {
  const weights = font.weights.length > 0 ? ` ${font.weights.join('/')}` : '';
  const details = [
    font.fallback.length > 0 ? `fallback ${font.fallback.map(oneLine).join(', ')}` : '',
    SOURCE_NAMES[font.source],
    font.url ?? '',
  ].filter((part) => part !== '');
  return `- ${capitalize(slot)}: ${oneLine(font.family)}${weights} (${details.join('; ')})`;
}

function knowledgeMarkdown(knowledge: readonly KnowledgeEntry[]): string[] {
  return KIND_ORDER.flatMap((kind) => {
    const entries = knowledge.filter((entry) => entry.kind === kind);
    if (entries.length === 0) return [];
    return [
      `### ${KIND_HEADINGS[kind]}`,
      ...entries.map((entry) =>
        entry.content.trim() === ''
          ? `- ${oneLine(entry.title)}`
          : `- **${oneLine(entry.title)}**: ${itemText(entry.content)}`,
      ),
    ];
  });
}

function assetLine(asset: Asset): string {
  const traits = [asset.variant, asset.background === null ? null : `${asset.background} background`]
    .filter((trait): trait is string => trait !== null && trait !== '')
    .map(oneLine);
  const size =
    asset.width !== null && asset.height !== null ? ` ${String(asset.width)}×${String(asset.height)}` : '';
  const alt = asset.alt.trim() === '' ? '' : `; alt "${oneLine(asset.alt)}"`;
  const described = traits.length > 0 ? ` (${traits.join(', ')})` : '';
  return `- ${capitalize(asset.kind)} "${oneLine(asset.name)}"${described}: ${asset.url}${size}${asset.mime_type === null ? '' : ` ${asset.mime_type}`}${alt}`;
}

/** A preference's value as JSON (a string quoted, a list bracketed), so that no value reads as another. */
function preferenceValue(value: BrandContext['preferences'][string]): string {
  return Array.isArray(value)
    ? `[${value.map((item) => JSON.stringify(item)).join(', ')}]`
    : JSON.stringify(value);
}

function quoted(term: string): string {
  return `"${oneLine(term)}"`;
}

/**
 * A rule as one short instruction a model can follow (docs/reading-brand-context.md "Rules"); its message,
 * when set, after a colon. Severity is not said: a model should keep warnings as well as errors.
 */
function ruleLine(rule: BrandRule): string {
  const instruction = ((): string => {
    switch (rule.kind) {
      case 'banned_term':
        return `Never say ${quoted(rule.value)}`;
      case 'preferred_term':
        return `Say ${quoted(rule.value.use)} instead of ${rule.value.instead_of.map(quoted).join(', ')}`;
      case 'required_phrase':
        return `Always include ${quoted(rule.value)}`;
      case 'max_exclamations':
        return `At most ${String(rule.value)} exclamation ${rule.value === 1 ? 'mark' : 'marks'}`;
      case 'max_emoji':
        return `At most ${String(rule.value)} emoji`;
      case 'palette_only':
        return 'Use only the brand colors';
      case 'fonts_only':
        return 'Use only the brand fonts';
    }
  })();
  const message = oneLine(rule.message);
  return message === '' ? `- ${instruction}.` : `- ${instruction}: ${message}`;
}

/** A section's lines under its heading; none when the section is empty. */
function sectionBody(
  context: BrandContext,
  section: BrandSection,
  knowledge: readonly KnowledgeEntry[],
): string[] {
  switch (section) {
    case 'name':
    case 'description':
      return [];
    case 'voice':
      return context.voice.trim() === '' ? [] : [proseLines(context.voice).join('\n')];
    case 'colors':
      return colorsMarkdown(context.colors);
    case 'fonts':
      return FONT_SLOTS.flatMap((slot) => {
        const font = context.fonts[slot];
        return font === null ? [] : [fontLine(slot, font)];
      });
    case 'social':
      return Object.entries(context.social).map(([network, url]) => `- ${network}: ${url}`);
    case 'knowledge':
      return knowledgeMarkdown(knowledge);
    case 'assets':
      return context.assets.map(assetLine);
    case 'skills':
      // The description in italics on its own line, the instructions a paragraph of their own under it.
      return context.skills.flatMap((skill) => {
        const text = [
          skill.description.trim() === '' ? '' : `_${oneLine(skill.description)}_`,
          skill.instructions.trim() === '' ? '' : proseLines(skill.instructions).join('\n'),
        ].filter((block) => block !== '');
        return [`### ${oneLine(skill.name)}`, ...(text.length === 0 ? [] : [text.join('\n\n')])];
      });
    case 'preferences':
      return Object.entries(context.preferences).map(
        ([name, value]) => `- ${name}: ${preferenceValue(value)}`,
      );
    case 'rules':
      return context.rules.map(ruleLine);
  }
}

/**
 * The brand's name heads every rendering, so that a section read alone still says whose brand it is; the
 * description follows it as a paragraph when asked.
 */
export function brandMarkdown(context: BrandContext, options: MarkdownOptions): string {
  const blocks: string[] = [`# ${oneLine(context.name)}`];
  for (const section of options.sections) {
    if (section === 'name') continue;
    if (section === 'description') {
      if (context.description.trim() !== '') blocks.push(proseLines(context.description).join('\n'));
      else if (!options.everySection) blocks.push('_No description._');
      continue;
    }
    const body = sectionBody(context, section, options.knowledge);
    const filtered = section === 'knowledge' && options.filtered;
    if (body.length === 0 && options.everySection && !filtered) continue;
    const empty = filtered ? '_No entry matches the filter._' : '_None._';
    const lines = body.length === 0 ? [empty] : body;
    blocks.push([`## ${SECTION_HEADINGS[section]}`, ...joinSubsections(lines)].join('\n'));
  }
  return `${blocks.join('\n\n')}\n`;
}

/** A blank line before each `###` heading after the first line, as Markdown renderers expect. */
function joinSubsections(lines: readonly string[]): string[] {
  return lines.flatMap((line, index) => (index > 0 && line.startsWith('### ') ? ['', line] : [line]));
}
