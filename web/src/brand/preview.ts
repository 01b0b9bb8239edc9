import type { BrandContext } from '../../../src/contract/brand-context';
import type { BrandDocument } from './model';

/** Placeholders for what only the service settles, on the next save. */
const ASSIGNED_ON_SAVE = '(assigned on save)';
const SET_ON_SAVE = '(set on save)';

function sameKnowledge(a: BrandDocument['knowledge'][number], b: BrandContext['knowledge'][number]): boolean {
  return (
    a.kind === b.kind &&
    a.title === b.title &&
    a.content === b.content &&
    JSON.stringify(a.tags) === JSON.stringify(b.tags)
  );
}

/**
 * The JSON the read operation would return once `document` is saved: every key in the order of README "The
 * brand context object" (the service's serializeBrandContext), the edited entries' ids and timestamps left
 * to the service.
 */
export function previewJson(document: BrandDocument, saved: BrandContext, changed: boolean): string {
  const savedKnowledge = new Map(saved.knowledge.map((entry) => [entry.id, entry]));
  const { colors, fonts } = document;
  const font = (value: BrandDocument['fonts']['heading']) =>
    value === null
      ? null
      : {
          family: value.family,
          weights: value.weights,
          fallback: value.fallback,
          source: value.source,
          url: value.url,
        };

  const ordered = {
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
  return JSON.stringify(ordered, null, 2);
}
