/**
 * The on-brand check (docs/brand-check.md): a brand's rules applied to a piece of copy (subject, plain text,
 * HTML). Pure: no I/O. `compileBrandChecker` prebuilds what depends only on the brand (term matchers, the
 * brand colors in Lab, the allowed font families), so a caller checking many texts against one brand version
 * compiles once; `checkBrand` is the one-off form.
 *
 * What is matched where (docs/brand-check.md "Matching"):
 * - terms and phrases on Unicode word boundaries (Intl.Segmenter), case-insensitively on NFC text; a phrase's
 *   spaces match any run of whitespace;
 * - in HTML only what a reader sees: text (entities decoded) and `alt`/`title` values, not tags, comments,
 *   <script>, <style> or <template>; block boundaries separate words, inline tags (<b>, <span>…) do not;
 * - CSS (style attributes, <style>, legacy color/bgcolor/face attributes) through css-tree, colors through
 *   culori, a color matching a brand color when CIEDE2000 ≤ 2.
 */
import type { CssNode, Declaration } from 'css-tree';
// The parser and walker alone: css-tree's main entry also loads its lexer and its data (src/types/css-tree.d.ts).
import parseCss from 'css-tree/parser';
import walk from 'css-tree/walker';
import {
  colorsNamed,
  converter,
  differenceCiede2000,
  formatHex,
  parse as parseColor,
  type Color,
} from 'culori';
import { Tokenizer, type TokenizerCallbacks } from 'htmlparser2';
import type { BrandContext, BrandRule, RuleKind } from './brand-context.js';

/** The fields of the content a finding can point into, in the order they are checked. */
export const CHECK_FIELDS = ['subject', 'text', 'html'] as const;
export type BrandCheckField = (typeof CHECK_FIELDS)[number];

/** What is checked: any of the three fields, each as sent (offsets are into these strings). */
export interface BrandCheckContent {
  subject?: string | undefined;
  text?: string | undefined;
  html?: string | undefined;
}

/** The part of a brand the check reads. */
export type CheckableBrand = Pick<BrandContext, 'rules' | 'colors' | 'fonts'>;

/**
 * One broken rule. `start`/`end` are UTF-16 offsets into `content[field]` as sent; for HTML,
 * `html.slice(start, end)` is the source of `excerpt` (entities decoded in the excerpt; for a CSS color or
 * font, the value as written). A missing required phrase has no place: `field`, `start` and `end` are null
 * and `excerpt` is "".
 */
export interface BrandCheckFinding {
  rule_id: string;
  kind: RuleKind;
  severity: 'error' | 'warning';
  message: string;
  excerpt: string;
  field: BrandCheckField | null;
  start: number | null;
  end: number | null;
}

/** A brand's rules compiled once; `check` may be called any number of times (it keeps no state but caches). */
export interface BrandChecker {
  check(content: BrandCheckContent): BrandCheckFinding[];
}

/** True when no finding is an error (warnings do not fail the check). */
export function checkPassed(findings: readonly BrandCheckFinding[]): boolean {
  return findings.every((finding) => finding.severity !== 'error');
}

/** `compileBrandChecker(brand).check(content)`. */
export function checkBrand(brand: CheckableBrand, content: BrandCheckContent): BrandCheckFinding[] {
  return compileBrandChecker(brand).check(content);
}

// ---------------------------------------------------------------------------------------------------------
// Decoded text with its way back to the source.

/** A run of decoded text and the source it came from: `exact` runs map one to one, entities as a whole. */
interface Piece {
  dec: number;
  raw: number;
  rawEnd: number;
  exact: boolean;
}

/**
 * Text as the reader sees it (`text`) and, for any range of it, the range of the source it was decoded from.
 * Separators added between blocks have no source of their own; no match starts or ends on one.
 */
class Decoded {
  text = '';
  readonly pieces: Piece[] = [];
  /** What `text` ends with, when it ends with a separator. */
  private last = '';

  push(decoded: string, raw: number, rawEnd: number, exact: boolean): void {
    if (decoded === '') return;
    this.pieces.push({ dec: this.text.length, raw, rawEnd, exact });
    this.text += decoded;
    this.last = '';
  }

  /** Appends `other` (decoded from the same source), keeping its way back. */
  append(other: Decoded): void {
    const shift = this.text.length;
    for (const piece of other.pieces) this.pieces.push({ ...piece, dec: piece.dec + shift });
    this.text += other.text;
    if (other.text !== '') this.last = '';
  }

  separate(separator: string): void {
    // Not `text.endsWith`: that flattens the string being built, on every tag of the document.
    if (this.text !== '' && this.last !== separator) this.text += separator;
    this.last = separator;
  }

  /** The source range of the decoded range [start, end). */
  source(start: number, end: number): [number, number] {
    const first = this.pieceAt(start);
    const last = this.pieceAt(Math.max(start, end - 1));
    const rawStart = first.exact
      ? first.raw + Math.min(start - first.dec, first.rawEnd - first.raw)
      : first.raw;
    const rawEnd = last.exact ? last.raw + Math.min(end - last.dec, last.rawEnd - last.raw) : last.rawEnd;
    return [rawStart, Math.max(rawStart, rawEnd)];
  }

  private pieceAt(index: number): Piece {
    const { pieces } = this;
    let low = 0;
    let high = pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((pieces[middle]?.dec ?? 0) <= index) low = middle;
      else high = middle - 1;
    }
    return pieces[low] ?? { dec: 0, raw: 0, rawEnd: 0, exact: true };
  }
}

function plain(text: string): Decoded {
  const decoded = new Decoded();
  decoded.push(text, 0, text.length, true);
  return decoded;
}

// ---------------------------------------------------------------------------------------------------------
// HTML: visible text, attribute text and CSS, with source offsets.

/** Tags that do not break a word: `<b>Hur</b>ry` reads "Hurry". Every other tag separates. */
const INLINE_TAGS = new Set([
  'a', 'abbr', 'b', 'bdi', 'bdo', 'big', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'ins', 'kbd',
  'label', 'mark', 'nobr', 'q', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt',
  'u', 'var', 'wbr',
]); // prettier-ignore
/** Tags whose content is never shown (an email client shows no document <title>). */
const HIDDEN_TAGS = new Set(['script', 'style', 'template', 'noscript', 'title']);
/** Attributes whose values a reader sees (or hears). */
const TEXT_ATTRIBUTES = new Set(['alt', 'title']);
/** A hard separator: not whitespace, so a phrase does not run across it, and not part of any word. */
const BLOCK = '\u0000';

/** CSS to read, with the way from its offsets back to the HTML source. */
interface CssSource {
  css: string;
  context: 'declarationList' | 'stylesheet';
  map: (start: number, end: number) => [number, number];
}

/** A legacy attribute value (`color`, `bgcolor`, `face`) with its decoded text and source. */
interface AttributeValue {
  name: string;
  value: Decoded;
}

interface ParsedHtml {
  text: Decoded;
  css: CssSource[];
  colors: AttributeValue[];
  faces: AttributeValue[];
}

/** Attributes whose values are kept (the rest are skipped without being decoded). */
const KEPT_ATTRIBUTES = new Set(['alt', 'title', 'style', 'color', 'bgcolor', 'face']);

class HtmlReader implements TokenizerCallbacks {
  readonly text = new Decoded();
  readonly css: CssSource[] = [];
  readonly colors: AttributeValue[] = [];
  readonly faces: AttributeValue[] = [];
  private tag = '';
  private hiddenDepth = 0;
  private rawTextTag: string | null = null;
  private styleStart = -1;
  private styleEnd = -1;
  private attribute: string | null = null;
  private attributeNameEnd = 0;
  private attributeValue: Decoded | null = null;
  private attributeCursor = -1;
  private pendingEntities: string[] = [];
  private attributes: AttributeValue[] = [];

  constructor(private readonly raw: string) {}

  onopentagname(start: number, end: number): void {
    this.tag = this.raw.slice(start, end).toLowerCase();
    this.attributes = [];
  }

  onattribname(start: number, end: number): void {
    const name = this.raw.slice(start, end).toLowerCase();
    const kept = KEPT_ATTRIBUTES.has(name) && (name !== 'face' || this.tag === 'font');
    this.attribute = kept ? name : null;
    this.attributeNameEnd = end;
    this.attributeValue = kept ? new Decoded() : null;
    this.attributeCursor = -1;
    this.pendingEntities = [];
  }

  onattribdata(start: number, end: number): void {
    if (this.attributeValue === null) return;
    this.flushEntities(start);
    this.attributeValue.push(this.raw.slice(start, end), start, end, true);
    this.attributeCursor = end;
  }

  onattribentity(codepoint: number): void {
    if (this.attributeValue !== null) this.pendingEntities.push(String.fromCodePoint(codepoint));
  }

  onattribend(quote: number, endIndex: number): void {
    if (this.attributeValue === null || this.attribute === null) return;
    // Quoted values end before their closing quote (QuoteType.Single = 2, Double = 3).
    this.flushEntities(quote >= 2 ? endIndex - 1 : endIndex);
    this.attributes.push({ name: this.attribute, value: this.attributeValue });
    this.attributeValue = null;
  }

  /**
   * The tokenizer reports an attribute's entities without their place: between two known points of the
   * source, each entity starts at its own `&` (an entity holds no other).
   */
  private flushEntities(boundary: number): void {
    const entities = this.pendingEntities;
    if (entities.length === 0 || this.attributeValue === null) return;
    let cursor = this.attributeCursor;
    if (cursor < 0) cursor = this.valueStart();
    const starts: number[] = [];
    for (
      let index = this.raw.indexOf('&', cursor);
      index >= 0 && index < boundary;
      index = this.raw.indexOf('&', index + 1)
    )
      starts.push(index);
    const value = this.attributeValue;
    if (starts.length === entities.length) {
      entities.forEach((entity, i) => {
        value.push(entity, starts[i] ?? cursor, starts[i + 1] ?? boundary, false);
      });
    } else {
      value.push(entities.join(''), cursor, boundary, false);
    }
    this.pendingEntities = [];
    this.attributeCursor = boundary;
  }

  private valueStart(): number {
    let index = this.attributeNameEnd;
    while (index < this.raw.length && /[\s=]/.test(this.raw.charAt(index))) index += 1;
    if (this.raw[index] === '"' || this.raw[index] === "'") index += 1;
    return index;
  }

  onopentagend(): void {
    this.openTag();
  }

  onselfclosingtag(): void {
    this.openTag();
  }

  private openTag(): void {
    const { tag } = this;
    this.separateFor(tag);
    for (const { name, value } of this.attributes) {
      if (TEXT_ATTRIBUTES.has(name)) {
        if (this.hiddenDepth > 0) continue;
        this.text.separate(BLOCK);
        this.text.append(value);
        this.text.separate(BLOCK);
      } else if (name === 'style') {
        this.css.push({ css: value.text, context: 'declarationList', map: (s, e) => value.source(s, e) });
      } else if (name === 'face') {
        this.faces.push({ name, value });
      } else {
        this.colors.push({ name, value });
      }
    }
    this.attributes = [];
    if (HIDDEN_TAGS.has(tag)) {
      this.hiddenDepth += 1;
      if (tag === 'script' || tag === 'style') this.rawTextTag = tag;
      if (tag === 'style') this.styleStart = -1;
    }
  }

  onclosetag(start: number, end: number): void {
    const tag = this.raw.slice(start, end).toLowerCase();
    if (HIDDEN_TAGS.has(tag) && this.hiddenDepth > 0) {
      this.hiddenDepth -= 1;
      if (tag === 'style') this.closeStyle();
      if (tag === this.rawTextTag) this.rawTextTag = null;
    }
    this.separateFor(tag);
  }

  private separateFor(tag: string): void {
    if (tag === 'br') this.text.push('\n', -1, -1, false);
    else if (!INLINE_TAGS.has(tag)) this.text.separate(BLOCK);
  }

  private closeStyle(): void {
    if (this.styleStart < 0) return;
    const base = this.styleStart;
    this.css.push({
      css: this.raw.slice(base, this.styleEnd),
      context: 'stylesheet',
      map: (s, e) => [base + s, base + e],
    });
    this.styleStart = -1;
  }

  ontext(start: number, end: number): void {
    if (this.rawTextTag === 'style') {
      if (this.styleStart < 0) this.styleStart = start;
      this.styleEnd = end;
      return;
    }
    if (this.hiddenDepth > 0) return;
    this.text.push(this.raw.slice(start, end), start, end, true);
  }

  ontextentity(codepoint: number, endIndex: number): void {
    if (this.hiddenDepth > 0) return;
    const start = this.raw.lastIndexOf('&', endIndex - 1);
    this.text.push(String.fromCodePoint(codepoint), start, endIndex, false);
  }

  onend(): void {
    if (this.rawTextTag === 'style') this.closeStyle();
  }

  oncdata(): void {}
  oncomment(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
}

function readHtml(html: string): ParsedHtml {
  const reader = new HtmlReader(html);
  const tokenizer = new Tokenizer({ decodeEntities: true }, reader);
  tokenizer.write(html);
  tokenizer.end();
  // The `<br>` pieces have no source: give them the place of the text before them.
  for (const piece of reader.text.pieces) {
    if (piece.raw < 0) {
      const index = reader.text.pieces.indexOf(piece);
      const previous = reader.text.pieces[index - 1];
      piece.raw = piece.rawEnd = previous?.rawEnd ?? 0;
    }
  }
  return { text: reader.text, css: reader.css, colors: reader.colors, faces: reader.faces };
}

// ---------------------------------------------------------------------------------------------------------
// Terms.

const wordSegmenter = new Intl.Segmenter('und', { granularity: 'word' });
const graphemeSegmenter = new Intl.Segmenter('und', { granularity: 'grapheme' });
const WHITESPACE = /^\s+$/u;
/** A token key standing for any run of whitespace. */
const SPACE = ' ';

interface Token {
  key: string;
  start: number;
  end: number;
}

function normalizeKey(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const { segment, index } of wordSegmenter.segment(text)) {
    const end = index + segment.length;
    if (WHITESPACE.test(segment)) {
      const last = tokens[tokens.length - 1];
      if (last?.key === SPACE) last.end = end;
      else tokens.push({ key: SPACE, start: index, end });
    } else {
      tokens.push({ key: normalizeKey(segment), start: index, end });
    }
  }
  return tokens;
}

interface TermPattern {
  rule: BrandRule;
  /** The term's tokens: NFC lowercase words and punctuation, SPACE for a run of whitespace. */
  keys: string[];
  /** The term in lowercase text, its spaces matching any run of whitespace; whole words are checked after. */
  search: RegExp;
}

function termPattern(rule: BrandRule, term: string): TermPattern {
  const keys = tokenize(term.trim()).map((token) => token.key);
  const source = keys.map((key) => (key === SPACE ? '\\s+' : key.replace(/[\\^$.*+?()[\]{}|/]/gu, '\\$&')));
  return { rule, keys, search: new RegExp(source.join(''), 'gu') };
}

interface TermMatch {
  pattern: TermPattern;
  start: number;
  end: number;
}

/** How far around a candidate match the text is segmented to find its word boundaries. */
const BOUNDARY_CONTEXT = 64;

/**
 * Whether [start, end) of `text` begins and ends on word boundaries. Segmenting the whole text costs
 * 100 times the rest of the check, so only the candidate's surroundings are: from the whitespace before it
 * to the whitespace after it (a break always falls there), or a generous window when there is none near.
 */
function onWordBoundaries(text: string, start: number, end: number): boolean {
  let from = start;
  while (from > 0 && start - from < BOUNDARY_CONTEXT && !/\s/u.test(text.charAt(from - 1))) from -= 1;
  let to = end;
  while (to < text.length && to - end < BOUNDARY_CONTEXT && !/\s/u.test(text.charAt(to))) to += 1;
  const window = wordSegmenter.segment(text.slice(from, to));
  const startsWord =
    start === from
      ? from === 0 || /\s/u.test(text.charAt(from - 1))
      : window.containing(start - from)?.index === start - from;
  if (!startsWord) return false;
  if (end === to) return to === text.length || /\s/u.test(text.charAt(to));
  return window.containing(end - from)?.index === end - from;
}

function matchTerms(
  text: string,
  patterns: readonly TermPattern[],
  byFirstKey: Map<string, TermPattern[]>,
): TermMatch[] {
  if (patterns.length === 0 || text === '') return [];
  const lowered = normalizeKey(text);
  if (lowered.length !== text.length) return matchTokens(text, byFirstKey);
  // Lowercasing and NFC kept every code unit in place (as they do but for rare letters such as İ or a
  // decomposed é): the lowered text's offsets are the text's.
  const matches: TermMatch[] = [];
  for (const pattern of patterns) {
    const { search } = pattern;
    search.lastIndex = 0;
    for (let found = search.exec(lowered); found !== null; found = search.exec(lowered)) {
      const end = found.index + found[0].length;
      if (onWordBoundaries(text, found.index, end)) matches.push({ pattern, start: found.index, end });
      else search.lastIndex = found.index + 1;
    }
  }
  return matches.sort((a, b) => a.start - b.start);
}

/** The slow, general way: every token of the text, compared with the terms' tokens. */
function matchTokens(text: string, byFirstKey: Map<string, TermPattern[]>): TermMatch[] {
  const tokens = tokenize(text);
  const matches: TermMatch[] = [];
  tokens.forEach((token, index) => {
    for (const pattern of byFirstKey.get(token.key) ?? []) {
      const { keys } = pattern;
      const last = tokens[index + keys.length - 1];
      if (last === undefined) continue;
      if (keys.every((key, offset) => tokens[index + offset]?.key === key))
        matches.push({ pattern, start: token.start, end: last.end });
    }
  });
  return matches;
}

// ---------------------------------------------------------------------------------------------------------
// Emoji and exclamation marks.

const EXCLAMATION = /[!\uFF01]/gu;
/** Characters an emoji cluster is built around; a text without any has no emoji. */
const EMOJI_BASE = /[\p{Extended_Pictographic}\p{Regional_Indicator}\u20E3]/u;
/** Runs of non-ASCII text, with a keycap's base before them: emoji clusters lie within such runs. */
const EMOJI_RUN = /[0-9#*]?\P{ASCII}+/uy;
const EMOJI_BASES = new RegExp(EMOJI_BASE.source, 'gu');
const PRESENTED = /\p{Emoji_Presentation}|\uFE0F|\u20E3|\p{Regional_Indicator}{2}/u;

/**
 * Whether a grapheme cluster is an emoji: a pictograph shown as emoji (emoji presentation by default, or
 * asked for with VS16), a flag (two regional indicators) or a keycap. A pictograph in text presentation
 * (©, ™, ☺ without VS16) is a symbol, not an emoji.
 */
function isEmoji(cluster: string): boolean {
  return (EMOJI_BASE.test(cluster) || cluster.includes('\u20E3')) && PRESENTED.test(cluster);
}

function findEmoji(text: string): { start: number; end: number }[] {
  const found: { start: number; end: number }[] = [];
  let searched = 0;
  // Only the non-ASCII runs holding an emoji base are segmented: accents, dashes and no-break spaces,
  // common in emails, are not worth a grapheme segmentation.
  for (const base of text.matchAll(EMOJI_BASES)) {
    if (base.index < searched) continue;
    let runStart = base.index;
    while (runStart > searched && text.charCodeAt(runStart - 1) > 0x7f) runStart -= 1;
    if (runStart > searched && /[0-9#*]/u.test(text.charAt(runStart - 1))) runStart -= 1;
    EMOJI_RUN.lastIndex = runStart;
    const run = EMOJI_RUN.exec(text);
    if (run === null) break;
    for (const { segment, index } of graphemeSegmenter.segment(run[0])) {
      if (isEmoji(segment)) found.push({ start: run.index + index, end: run.index + index + segment.length });
    }
    searched = run.index + run[0].length;
  }
  return found;
}

// ---------------------------------------------------------------------------------------------------------
// CSS colors and fonts.

const toLab = converter('lab65');
const deltaE = differenceCiede2000();
/** Colors at most this far (CIEDE2000) from a brand color are that color. */
const COLOR_TOLERANCE = 2;
const COLOR_FUNCTIONS = new Set([
  'rgb',
  'rgba',
  'hsl',
  'hsla',
  'hwb',
  'lab',
  'lch',
  'oklab',
  'oklch',
  'color',
]);
const NAMED_COLORS: ReadonlySet<string> = new Set(Object.keys(colorsNamed));
/** Properties whose bare words can be colors (`border: 1px solid red`); elsewhere `red` is a name. */
const COLOR_PROPERTY =
  /color|^(background|border|outline|box-shadow|text-shadow|text-decoration|column-rule|fill|stroke)/;
const GENERIC_FAMILIES = new Set([
  'serif', 'sans-serif', 'monospace', 'cursive', 'fantasy', 'system-ui', 'ui-serif', 'ui-sans-serif',
  'ui-monospace', 'ui-rounded', 'math', 'emoji', 'fangsong',
  // CSS-wide keywords are not families.
  'inherit', 'initial', 'unset', 'revert', 'revert-layer',
]); // prettier-ignore
const FONT_SIZE_KEYWORDS = new Set([
  'xx-small', 'x-small', 'small', 'medium', 'large', 'x-large', 'xx-large', 'xxx-large', 'smaller', 'larger',
]); // prettier-ignore

interface Found {
  excerpt: string;
  start: number;
  end: number;
  /** The color as #rrggbb, or the font family. */
  value: string;
}

function cssNodeRange(node: CssNode): [number, number] | null {
  return node.loc ? [node.loc.start.offset, node.loc.end.offset] : null;
}

/** The families of a `font-family` value or of the tail of a `font` value, each with its range. */
function familiesOf(nodes: CssNode[]): { family: string; start: number; end: number }[] {
  const families: { family: string; start: number; end: number }[] = [];
  let group: CssNode[] = [];
  const close = () => {
    const first = group[0];
    const last = group[group.length - 1];
    const firstRange = first && cssNodeRange(first);
    const lastRange = last && cssNodeRange(last);
    if (firstRange && lastRange) {
      let family: string | null = null;
      if (group.length === 1 && first.type === 'String') family = first.value;
      else {
        const names = group.map((node) => (node.type === 'Identifier' ? node.name : null));
        if (!names.includes(null)) family = names.join(' ');
      }
      if (family !== null) families.push({ family: family.trim(), start: firstRange[0], end: lastRange[1] });
    }
    group = [];
  };
  for (const node of nodes) {
    if (node.type === 'Operator' && node.value === ',') close();
    else group.push(node);
  }
  close();
  return families;
}

/** The family list of a `font` shorthand: what follows the size (and its `/ line-height`). */
function fontShorthandFamilies(nodes: CssNode[]): CssNode[] {
  const size = nodes.findIndex(
    (node) =>
      node.type === 'Dimension' ||
      node.type === 'Percentage' ||
      (node.type === 'Identifier' && FONT_SIZE_KEYWORDS.has(node.name.toLowerCase())),
  );
  if (size < 0) return [];
  let next = size + 1;
  const slash = nodes[next];
  if (slash?.type === 'Operator' && slash.value === '/') next += 2;
  return nodes.slice(next);
}

interface CssColor {
  text: string;
  start: number;
  end: number;
}

/** The colors and font families of a piece of CSS, with their offsets in it. */
interface CssRead {
  colors: CssColor[];
  fonts: { family: string; start: number; end: number }[];
}

function readDeclaration(declaration: Declaration, css: string, read: CssRead): void {
  const property = declaration.property.toLowerCase();
  if (property.startsWith('--') || declaration.value.type !== 'Value') return;
  const nodes = declaration.value.children.toArray();
  if (property === 'font-family' || property === 'font') {
    read.fonts.push(...familiesOf(property === 'font' ? fontShorthandFamilies(nodes) : nodes));
  }
  if (property !== 'font-family') colorsIn(nodes, css, COLOR_PROPERTY.test(property), read.colors);
}

/** The colors among a value's nodes, functions' arguments included (`linear-gradient(#fff, red)`). */
function colorsIn(nodes: CssNode[], css: string, bareWords: boolean, colors: CssColor[]): void {
  for (const node of nodes) {
    const range = cssNodeRange(node);
    if (range === null) continue;
    if (
      node.type === 'Hash' ||
      (node.type === 'Identifier' && bareWords && NAMED_COLORS.has(node.name.toLowerCase()))
    ) {
      colors.push({ text: css.slice(range[0], range[1]), start: range[0], end: range[1] });
    } else if (node.type === 'Function') {
      if (COLOR_FUNCTIONS.has(node.name.toLowerCase()))
        colors.push({
          text: css.slice(range[0], range[1]),
          start: range[0],
          end: range[1],
        });
      else colorsIn(node.children.toArray(), css, bareWords, colors);
    } else if (node.type === 'Parentheses') {
      colorsIn(node.children.toArray(), css, bareWords, colors);
    }
  }
}

function readCss(css: string, context: CssSource['context']): CssRead {
  const read: CssRead = { colors: [], fonts: [] };
  const ast = parseCss(css, {
    context,
    positions: true,
    parseCustomProperty: false,
    parseRulePrelude: false,
    parseAtrulePrelude: false,
    onParseError: () => undefined,
  });
  walk(ast, {
    visit: 'Declaration',
    enter(declaration) {
      readDeclaration(declaration, css, read);
    },
  });
  return read;
}

// ---------------------------------------------------------------------------------------------------------
// The checker.

function defaultMessage(rule: BrandRule, found: string): string {
  switch (rule.kind) {
    case 'banned_term':
      return `Don't say "${rule.value}".`;
    case 'preferred_term':
      return `Say "${rule.value.use}" instead of "${found}".`;
    case 'required_phrase':
      return `Include "${rule.value}".`;
    case 'max_exclamations':
      return `At most ${String(rule.value)} exclamation ${rule.value === 1 ? 'mark' : 'marks'}.`;
    case 'max_emoji':
      return `At most ${rule.value} emoji.`;
    case 'palette_only':
      return `${found} is not a brand color.`;
    case 'fonts_only':
      return `"${found}" is not a brand font.`;
  }
}

/** The color cache's bound: an email names a few dozen colors; a bound keeps hostile input from growing it. */
const COLOR_CACHE_SIZE = 1000;
/** The CSS cache's bound, for the same reason; CSS kept is at most 1000 style attributes or blocks. */
const CSS_CACHE_SIZE = 1000;

export function compileBrandChecker(brand: CheckableBrand): BrandChecker {
  const rules = brand.rules;
  const termPatterns: TermPattern[] = [];
  const requiredPatterns: TermPattern[] = [];
  for (const rule of rules) {
    if (rule.kind === 'banned_term') termPatterns.push(termPattern(rule, rule.value));
    else if (rule.kind === 'preferred_term')
      for (const term of rule.value.instead_of) termPatterns.push(termPattern(rule, term));
    else if (rule.kind === 'required_phrase') requiredPatterns.push(termPattern(rule, rule.value));
  }
  const allPatterns = [...termPatterns, ...requiredPatterns].filter((pattern) => pattern.keys.length > 0);
  const byFirstKey = new Map<string, TermPattern[]>();
  for (const pattern of allPatterns) {
    const first = pattern.keys[0] ?? '';
    byFirstKey.set(first, [...(byFirstKey.get(first) ?? []), pattern]);
  }
  const limits = (kind: 'max_exclamations' | 'max_emoji') =>
    rules.flatMap((rule) =>
      rule.kind === kind && typeof rule.value === 'number' ? [{ rule, limit: rule.value }] : [],
    );
  const exclamationRules = limits('max_exclamations');
  const emojiRules = limits('max_emoji');
  const paletteRules = rules.filter((rule) => rule.kind === 'palette_only');
  const fontRules = rules.filter((rule) => rule.kind === 'fonts_only');

  const { palette, ...roles } = brand.colors;
  const brandLabs = [...Object.values(roles), ...palette.map((entry) => entry.hex)]
    .filter((hex): hex is string => typeof hex === 'string')
    .map((hex) => toLab(parseColor(hex)))
    .filter((lab) => lab !== undefined);
  const allowedFamilies = new Set<string>();
  for (const font of [brand.fonts.heading, brand.fonts.body]) {
    if (font === null) continue;
    for (const family of [font.family, ...font.fallback]) allowedFamilies.add(familyKey(family));
  }
  /** Color as written → its #rrggbb when it is not a brand color, null when it is (or is no color). */
  const colorCache = new Map<string, string | null>();
  const offBrand = (text: string): string | null => {
    const key = text.toLowerCase();
    const cached = colorCache.get(key);
    if (cached !== undefined) return cached;
    const color: Color | undefined = parseColor(key);
    let verdict: string | null = null;
    if (color !== undefined && (color.alpha === undefined || color.alpha > 0)) {
      const lab = toLab(color);
      if (!brandLabs.some((brandLab) => deltaE(brandLab, lab) <= COLOR_TOLERANCE)) verdict = formatHex(color);
    }
    if (colorCache.size >= COLOR_CACHE_SIZE) colorCache.clear();
    colorCache.set(key, verdict);
    return verdict;
  };

  /**
   * CSS as written → what it holds. Emails repeat the same style attributes on every row, and an editor
   * checking as the user types sends the same styles again and again.
   */
  const cssCache = new Map<string, CssRead>();
  const readCssCached = ({ css, context }: CssSource): CssRead => {
    const key = `${context === 'stylesheet' ? 's' : 'd'}${css}`;
    let read = cssCache.get(key);
    if (read === undefined) {
      read = readCss(css, context);
      if (cssCache.size >= CSS_CACHE_SIZE) cssCache.clear();
      cssCache.set(key, read);
    }
    return read;
  };

  return {
    check(content) {
      const findings: BrandCheckFinding[] = [];
      const add = (
        rule: BrandRule,
        found: string,
        excerpt: string,
        field: BrandCheckField | null,
        range: [number, number] | null,
      ) => {
        findings.push({
          rule_id: rule.id,
          kind: rule.kind,
          severity: rule.severity,
          message: rule.message === '' ? defaultMessage(rule, found) : rule.message,
          excerpt,
          field,
          start: range?.[0] ?? null,
          end: range?.[1] ?? null,
        });
      };
      const required = new Set<BrandRule>();
      let exclamations = 0;
      let emoji = 0;
      const wantCss = paletteRules.length > 0 || fontRules.length > 0;

      for (const field of CHECK_FIELDS) {
        const raw = content[field];
        if (raw === undefined || raw === '') continue;
        const html =
          field === 'html'
            ? readHtmlIf(
                raw,
                allPatterns.length > 0 || exclamationRules.length > 0 || emojiRules.length > 0 || wantCss,
              )
            : null;
        const decoded = html?.text ?? plain(raw);
        const { text } = decoded;

        for (const match of matchTerms(text, allPatterns, byFirstKey)) {
          const { rule } = match.pattern;
          if (rule.kind === 'required_phrase') {
            required.add(rule);
            continue;
          }
          const excerpt = text.slice(match.start, match.end);
          add(rule, excerpt, excerpt, field, decoded.source(match.start, match.end));
        }
        if (exclamationRules.length > 0) {
          for (const mark of text.matchAll(EXCLAMATION)) {
            exclamations += 1;
            for (const { rule, limit } of exclamationRules) {
              if (exclamations > limit)
                add(rule, mark[0], mark[0], field, decoded.source(mark.index, mark.index + 1));
            }
          }
        }
        if (emojiRules.length > 0) {
          for (const { start, end } of findEmoji(text)) {
            emoji += 1;
            const excerpt = text.slice(start, end);
            for (const { rule, limit } of emojiRules) {
              if (emoji > limit) add(rule, excerpt, excerpt, field, decoded.source(start, end));
            }
          }
        }
        if (html === null || !wantCss) continue;

        const colorsFound: Found[] = [];
        const fontsFound: Found[] = [];
        for (const source of html.css) {
          const read = readCssCached(source);
          for (const color of read.colors) {
            const hex = offBrand(color.text);
            if (hex !== null) {
              const [start, end] = source.map(color.start, color.end);
              colorsFound.push({
                excerpt: color.text,
                start,
                end,
                value: hex,
              });
            }
          }
          for (const font of read.fonts) {
            if (allowedFamilies.has(familyKey(font.family))) continue;
            const [start, end] = source.map(font.start, font.end);
            fontsFound.push({
              excerpt: source.css.slice(font.start, font.end),
              start,
              end,
              value: font.family,
            });
          }
        }
        if (paletteRules.length > 0) {
          for (const { value } of html.colors) {
            const written = value.text.trim();
            const hex = written === '' ? null : offBrand(written);
            if (hex === null) continue;
            const offset = value.text.indexOf(written);
            const [start, end] = value.source(offset, offset + written.length);
            colorsFound.push({ excerpt: written, start, end, value: hex });
          }
        }
        if (fontRules.length > 0) {
          for (const { value } of html.faces) {
            let offset = 0;
            for (const part of value.text.split(',')) {
              const family = part.trim().replace(/^["']|["']$/g, '');
              const at = offset + part.indexOf(part.trim());
              offset += part.length + 1;
              if (
                family === '' ||
                GENERIC_FAMILIES.has(family.toLowerCase()) ||
                allowedFamilies.has(familyKey(family))
              )
                continue;
              const [start, end] = value.source(at, at + part.trim().length);
              fontsFound.push({ excerpt: part.trim(), start, end, value: family });
            }
          }
        }
        for (const found of colorsFound.sort(byStart))
          for (const rule of paletteRules)
            add(rule, found.value, found.excerpt, field, [found.start, found.end]);
        for (const found of fontsFound.sort(byStart)) {
          if (GENERIC_FAMILIES.has(found.value.toLowerCase())) continue;
          for (const rule of fontRules)
            add(rule, found.value, found.excerpt, field, [found.start, found.end]);
        }
      }
      for (const pattern of requiredPatterns) {
        if (!required.has(pattern.rule)) add(pattern.rule, '', '', null, null);
      }
      return sortFindings(findings, rules);
    },
  };
}

function readHtmlIf(html: string, needed: boolean): ParsedHtml | null {
  return needed ? readHtml(html) : null;
}

function familyKey(family: string): string {
  return family
    .trim()
    .replace(/^["']|["']$/g, '')
    .replace(/\s+/g, ' ')
    .toLowerCase();
}

function byStart(a: Found, b: Found): number {
  return a.start - b.start;
}

/** Findings in reading order: field by field, then by place, then in the order of the rules. */
function sortFindings(findings: BrandCheckFinding[], rules: readonly BrandRule[]): BrandCheckFinding[] {
  const fieldOrder = (field: BrandCheckField | null) =>
    field === null ? CHECK_FIELDS.length : CHECK_FIELDS.indexOf(field);
  const ruleOrder = new Map(rules.map((rule, index) => [rule.id, index]));
  const ruleIndex = (finding: BrandCheckFinding) => ruleOrder.get(finding.rule_id) ?? 0;
  return findings
    .map((finding, index) => ({ finding, index }))
    .sort(
      (a, b) =>
        fieldOrder(a.finding.field) - fieldOrder(b.finding.field) ||
        (a.finding.start ?? 0) - (b.finding.start ?? 0) ||
        ruleIndex(a.finding) - ruleIndex(b.finding) ||
        a.index - b.index,
    )
    .map(({ finding }) => finding);
}
