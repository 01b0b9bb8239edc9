import {
  type BrandContext,
  type BrandDocument as AcceptedDocument,
  brandDocumentSchema,
} from '../../../src/contract/brand-context';
import { BRAND_FORMATS, type BrandFormat } from '../../../src/contract/brand-views';
import { brandView, renderBrandView } from '../../../src/core/brand-views';
import type { FieldIssue } from '../../../src/core/errors';
import { toFieldIssues } from '../../../src/core/inputs';
import type { BrandDocument } from './model';

/** Placeholders for what only the service settles, on the next save. */
const ASSIGNED_ON_SAVE = '(assigned on save)';
const SET_ON_SAVE = '(set on save)';

export type Acceptance = { accepted: AcceptedDocument } | { refused: FieldIssue[] };

/**
 * What Save would make of `document`, by the service's own schema: the brand it would store, or each field it
 * would refuse, named as its 400 answer names them (`colors.primary`: "must be a #RRGGBB color").
 */
export function accept(document: BrandDocument): Acceptance {
  const result = brandDocumentSchema.safeParse(document);
  return result.success ? { accepted: result.data } : { refused: toFieldIssues(result.error.issues) };
}

function sameKnowledge(
  a: AcceptedDocument['knowledge'][number],
  b: BrandContext['knowledge'][number],
): boolean {
  return (
    a.kind === b.kind &&
    a.title === b.title &&
    a.content === b.content &&
    JSON.stringify(a.tags) === JSON.stringify(b.tags)
  );
}

/**
 * The brand the read operation would read once `document` is saved, the edited entries' ids and timestamps
 * left to the service: each key in the order the service's schema gives it, so that its JSON reads as the
 * service's does.
 */
function previewContext(document: AcceptedDocument, saved: BrandContext, changed: boolean): BrandContext {
  const savedKnowledge = new Map(saved.knowledge.map((entry) => [entry.id, entry]));
  const { colors, fonts } = document;
  const font = (value: AcceptedDocument['fonts']['heading']) =>
    value === null
      ? null
      : {
          family: value.family,
          weights: value.weights,
          fallback: value.fallback,
          source: value.source,
          url: value.url,
        };

  return {
    workspace_id: saved.workspace_id,
    name: document.name,
    description: document.description,
    voice: document.voice,
    colors: {
      primary: colors.primary,
      secondary: colors.secondary,
      accent: colors.accent,
      background: colors.background,
      text: colors.text,
      palette: colors.palette.map((entry) => ({ name: entry.name, hex: entry.hex, role: entry.role })),
    },
    fonts: { heading: font(fonts.heading), body: font(fonts.body) },
    social: document.social,
    knowledge: document.knowledge.map((entry) => {
      const before = entry.id === undefined ? undefined : savedKnowledge.get(entry.id);
      return {
        id: entry.id ?? ASSIGNED_ON_SAVE,
        kind: entry.kind,
        title: entry.title,
        content: entry.content,
        tags: entry.tags,
        updated_at: before !== undefined && sameKnowledge(entry, before) ? before.updated_at : SET_ON_SAVE,
      };
    }),
    assets: document.assets.map((asset) => ({
      id: asset.id ?? ASSIGNED_ON_SAVE,
      kind: asset.kind,
      name: asset.name,
      url: asset.url,
      mime_type: asset.mime_type,
      width: asset.width,
      height: asset.height,
      bytes: asset.bytes,
      variant: asset.variant,
      background: asset.background,
      alt: asset.alt,
    })),
    skills: document.skills.map((skill) => ({
      id: skill.id ?? ASSIGNED_ON_SAVE,
      name: skill.name,
      description: skill.description,
      instructions: skill.instructions,
    })),
    preferences: document.preferences,
    // Every saved change raises the version by one.
    updated_at: changed ? SET_ON_SAVE : saved.updated_at,
    version: changed ? saved.version + 1 : saved.version,
  };
}

/** One format's preview: what the read operation sends, and what the page shows of it. */
export interface FormatPreview {
  format: BrandFormat;
  /** The response body, byte for byte (before encoding): what a model reads, and what is counted. */
  sent: string;
  /** The body as shown: JSON indented, the other formats as sent. */
  shown: string;
}

const indentJson = (text: string) => JSON.stringify(JSON.parse(text), null, 2);

/**
 * Each format's answer of the read operation (README "Formats and sections") once `document` (one the service
 * accepts: see `accept`) is saved, rendered by the service's own code.
 */
export function previewFormats(
  document: AcceptedDocument,
  saved: BrandContext,
  changed: boolean,
): FormatPreview[] {
  const context = previewContext(document, saved, changed);
  return BRAND_FORMATS.map((format) => {
    const { text } = renderBrandView(context, brandView({ format }));
    return { format, sent: text, shown: format === 'json' ? indentJson(text) : text };
  });
}
