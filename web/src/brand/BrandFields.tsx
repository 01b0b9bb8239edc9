import type { MouseEvent, ReactNode } from 'react';
import { TextField } from '../components/fields';
import { AssetsEditor } from './AssetsEditor';
import { PREVIEW_HEADING_ID } from './BrandPreview';
import { ColorsEditor } from './ColorsEditor';
import { ContrastReport } from './ContrastReport';
import { FontsEditor } from './FontsEditor';
import { KnowledgeEditor } from './KnowledgeEditor';
import type { BrandForm, SectionId } from './model';
import { PreferencesEditor } from './PreferencesEditor';
import { RulesEditor } from './RulesEditor';
import { SkillsEditor } from './SkillsEditor';
import { SocialEditor } from './SocialEditor';

/** The form's sections, in order: each a section with this id and heading, and a link in "Brand sections". */
export const SECTIONS: readonly { id: SectionId; title: string }[] = [
  { id: 'basics', title: 'Basics' },
  { id: 'voice', title: 'Voice' },
  { id: 'colors', title: 'Colors' },
  { id: 'fonts', title: 'Fonts' },
  { id: 'social', title: 'Social links' },
  { id: 'knowledge', title: 'Knowledge' },
  { id: 'assets', title: 'Assets' },
  { id: 'skills', title: 'Skills' },
  { id: 'preferences', title: 'Preferences' },
  { id: 'rules', title: 'Rules' },
];
export const sectionTitle = (id: SectionId) => SECTIONS.find((section) => section.id === id)?.title ?? id;

const noErrors = () => undefined;
const ignore = () => undefined;

interface BrandFieldsProps {
  form: BrandForm;
  /** An edit of the form; left out where the brand is only shown (a version of its history). */
  onEdit?: (update: (current: BrandForm) => BrandForm) => void;
  errorAt?: (path: string) => string | undefined;
  readOnly: boolean;
}

/**
 * Every section of the brand as the editor shows it: the brand editor's form, and (read-only) a version
 * of the brand's history, so that an old version reads exactly as the brand did then.
 */
export function BrandFields({ form, onEdit = ignore, errorAt = noErrors, readOnly }: BrandFieldsProps) {
  function change<K extends keyof BrandForm>(key: K) {
    return (value: BrandForm[K]) => {
      onEdit((current) => ({ ...current, [key]: value }));
    };
  }
  const section = { errorAt, readOnly };
  return (
    <fieldset disabled={readOnly} className="plain-fieldset">
      <legend className="visually-hidden">Brand</legend>
      <BrandSection id="basics">
        <TextField
          label="Name"
          value={form.name}
          onChange={change('name')}
          error={errorAt('name')}
          required
        />
        <TextField
          label="Description"
          multiline
          rows={3}
          value={form.description}
          onChange={change('description')}
          error={errorAt('description')}
        />
      </BrandSection>
      <BrandSection id="voice">
        <TextField
          label="Voice"
          multiline
          rows={5}
          value={form.voice}
          onChange={change('voice')}
          error={errorAt('voice')}
          hint="Voice and tone guidelines for generated copy."
        />
      </BrandSection>
      <BrandSection id="colors">
        <ColorsEditor
          value={{ colors: form.colors, palette: form.palette }}
          onChange={({ colors, palette }) => {
            onEdit((current) => ({ ...current, colors, palette }));
          }}
          {...section}
        />
        <ContrastReport colors={form.colors} />
      </BrandSection>
      <BrandSection id="fonts">
        <FontsEditor value={form.fonts} onChange={change('fonts')} {...section} />
      </BrandSection>
      <BrandSection id="social">
        <SocialEditor value={form.social} onChange={change('social')} {...section} />
      </BrandSection>
      <BrandSection id="knowledge">
        <KnowledgeEditor value={form.knowledge} onChange={change('knowledge')} {...section} />
      </BrandSection>
      <BrandSection id="assets">
        <AssetsEditor value={form.assets} onChange={change('assets')} {...section} />
      </BrandSection>
      <BrandSection id="skills">
        <SkillsEditor value={form.skills} onChange={change('skills')} {...section} />
      </BrandSection>
      <BrandSection id="preferences">
        <PreferencesEditor value={form.preferences} onChange={change('preferences')} {...section} />
      </BrandSection>
      <BrandSection id="rules">
        <RulesEditor value={form.rules} onChange={change('rules')} {...section} />
      </BrandSection>
    </fieldset>
  );
}

const headingId = (id: SectionId) => `brand-${id}-heading`;

function BrandSection({ id, children }: { id: SectionId; children: ReactNode }) {
  return (
    <section aria-labelledby={headingId(id)} className="section brand-section">
      {/* Focusable from script: the section links move focus here, so Tab goes on inside the section. */}
      <h2 id={headingId(id)} tabIndex={-1}>
        {sectionTitle(id)}
      </h2>
      {children}
    </section>
  );
}

/**
 * "Brand sections": a list of links that sticks below the top bar (one scrolling row on phones), the form's
 * sections and then the preview, whose link stays in view at the row's end: narrow screens put the preview
 * below the whole form. A link scrolls its heading to the top and gives it focus, without touching the address.
 */
export function SectionNav() {
  const links: { target: string; title: string; className?: string }[] = [
    ...SECTIONS.map(({ id, title }) => ({ target: headingId(id), title })),
    { target: PREVIEW_HEADING_ID, title: 'Preview', className: 'section-nav-preview' },
  ];
  function go(event: MouseEvent<HTMLAnchorElement>, target: string) {
    const heading = document.getElementById(target);
    if (heading === null) return;
    event.preventDefault();
    heading.scrollIntoView({ block: 'start' });
    heading.focus({ preventScroll: true });
  }
  return (
    <nav aria-label="Brand sections" className="section-nav">
      <ul>
        {links.map(({ target, title, className }) => (
          <li key={target} className={className}>
            <a
              href={`#${target}`}
              onClick={(event) => {
                go(event, target);
              }}
            >
              {title}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
