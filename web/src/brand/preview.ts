import {
  type BrandContext,
  type BrandDocument as AcceptedDocument,
  brandDocumentSchema,
  settleBrandDocument,
} from '../../../src/core/brand-context';
import { BRAND_FORMATS, type BrandFormat, brandView, renderBrandView } from '../../../src/core/brand-views';
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

/**
 * The brand the read operation would read once `document` is saved, settled by the service's own rules
 * (settleBrandDocument): unchanged entries keep their ids and timestamps, and what only a save settles shows
 * as a placeholder.
 */
function previewContext(document: AcceptedDocument, saved: BrandContext, changed: boolean): BrandContext {
  return {
    workspace_id: saved.workspace_id,
    ...settleBrandDocument(document, saved, SET_ON_SAVE, () => ASSIGNED_ON_SAVE),
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
 * Each format's answer of the read operation (docs/reading-brand-context.md "Formats and sections") once `document` (one the service
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
