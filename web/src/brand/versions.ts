import type { BrandVersion, BrandVersionDiffView } from '../../../src/contract/brand-versions';
import type { BrandContext, BrandSection } from '../../../src/core/brand-context';
import { diffBrandSections } from '../../../src/core/brand-versions';

/**
 * The brand's history as the console shows it (docs/brand-versions.md): versions listed with who made
 * them, and the changes between two of them section by section.
 */

export type BrandVersionEntry = BrandVersion;
export type SectionDiff = BrandVersionDiffView['sections'][number];
export type ChangeEntry = SectionDiff['changes'][number];

/** Each section of the brand context as the editor names it. */
const SECTION_TITLES: Record<BrandSection, string> = {
  name: 'Name',
  description: 'Description',
  voice: 'Voice',
  colors: 'Colors',
  fonts: 'Fonts',
  social: 'Social links',
  knowledge: 'Knowledge',
  assets: 'Assets',
  skills: 'Skills',
  preferences: 'Preferences',
  rules: 'Rules',
};

export function brandSectionTitle(section: BrandSection): string {
  return SECTION_TITLES[section];
}

/** "Colors, Voice": the sections a version changed, or what to say when it changed none (a rename only). */
export function sectionsText(sections: readonly BrandSection[]): string {
  return sections.length === 0 ? 'None' : sections.map(brandSectionTitle).join(', ');
}

/** Who made a version, in words: the audit log's actor (a signed-in user, a key, the CLI, the service). */
export function authorText(author: BrandVersionEntry['created_by']): string {
  switch (author.type) {
    case 'user':
      return author.email ?? author.id ?? 'A deleted account';
    case 'api_key':
      return `Workspace API key ${author.id ?? ''}`.trim();
    case 'operator':
      return 'Operator (CLI)';
    case 'system':
      return 'System';
  }
}

const OPERATIONS: Record<ChangeEntry['op'], string> = {
  add: 'Added',
  remove: 'Removed',
  replace: 'Changed',
  move: 'Moved',
};

export function changeText(op: ChangeEntry['op']): string {
  return OPERATIONS[op];
}

/** A value of a change as text: strings as they are, everything else as indented JSON. */
export function valueText(value: unknown): string {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/**
 * What a draft changes of the published brand, as the history's diff shows two versions: the service's own
 * diff (src/core/brand-versions.ts), run here on the two brands the page has loaded.
 */
export function draftChanges(published: BrandContext, draft: BrandContext): SectionDiff[] {
  return diffBrandSections(published, draft);
}
