import { type MouseEvent, type SubmitEvent, type ReactNode, useMemo, useRef, useState } from 'react';
import { api, url } from '../api';
import { AssetsEditor } from '../brand/AssetsEditor';
import { BrandPreview, PREVIEW_HEADING_ID } from '../brand/BrandPreview';
import { ColorsEditor } from '../brand/ColorsEditor';
import { FontsEditor } from '../brand/FontsEditor';
import { KnowledgeEditor } from '../brand/KnowledgeEditor';
import {
  type BrandDocument,
  type BrandForm,
  type SectionId,
  sectionsThatDiffer,
  toDocument,
  toForm,
  validate,
} from '../brand/model';
import { PreferencesEditor } from '../brand/PreferencesEditor';
import { SkillsEditor } from '../brand/SkillsEditor';
import { SocialEditor } from '../brand/SocialEditor';
import { ConflictAlert } from '../components/ConflictAlert';
import { TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { capitalize, plural } from '../format';
import { useNotice } from '../notice';
import type { BrandContext } from '../../../src/core/brand-context';
import { versionEtag } from '../../../src/core/entity-tags';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';
import { useUnsavedChanges } from '../useUnsavedChanges';

/** The form's sections, in order: each a section with this id and heading, and a link in "Brand sections". */
const SECTIONS: readonly { id: SectionId; title: string }[] = [
  { id: 'basics', title: 'Basics' },
  { id: 'voice', title: 'Voice' },
  { id: 'colors', title: 'Colors' },
  { id: 'fonts', title: 'Fonts' },
  { id: 'social', title: 'Social links' },
  { id: 'knowledge', title: 'Knowledge' },
  { id: 'assets', title: 'Assets' },
  { id: 'skills', title: 'Skills' },
  { id: 'preferences', title: 'Preferences' },
];
const sectionTitle = (id: SectionId) => SECTIONS.find((section) => section.id === id)?.title ?? id;

export function Brand() {
  const workspace = useWorkspace();
  const brand = useResource(url('/api/v1/workspaces/{id}/brand', { id: workspace.id }));
  if (brand.data === undefined)
    return (
      <>
        <PageHeader title="Brand" />
        <ProblemAlert error={brand.error} />
        {brand.loading && <p className="muted">Loading the brand…</p>}
      </>
    );
  // Each load (a Reload after a conflict included) starts the form afresh from what the service holds.
  return (
    <BrandEditor
      key={brand.loadedAt}
      workspaceId={workspace.id}
      loaded={brand.data}
      readOnly={!canManage(workspace)}
      onReload={brand.reload}
    />
  );
}

/** Where a field path points in a document: `knowledge[1].kind`, `preferences.sign.off` (names may hold dots). */
function valueAt(document: BrandDocument, path: string): unknown {
  const [head = '', ...rest] = path.split('.');
  if (head === 'preferences' || head === 'social') return document[head][rest.join('.')];
  const segments = path.match(/[^.[\]]+/g) ?? [];
  return segments.reduce<unknown>(
    (value, segment) =>
      typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[segment] : undefined,
    document,
  );
}

/** Gives the rows of `form` the ids the service assigned to the entries saved from it (same order). */
function adoptIds(form: BrandForm, saved: BrandContext): BrandForm {
  return {
    ...form,
    knowledge: form.knowledge.map((row, index) => ({ ...row, id: row.id ?? saved.knowledge[index]?.id })),
    assets: form.assets.map((row, index) => ({ ...row, id: row.id ?? saved.assets[index]?.id })),
    skills: form.skills.map((row, index) => ({ ...row, id: row.id ?? saved.skills[index]?.id })),
  };
}

interface BrandEditorProps {
  workspaceId: string;
  loaded: BrandContext;
  readOnly: boolean;
  onReload: () => void;
}

/** What a 412 means here: someone else saved the brand after this page loaded it. */
const CONFLICT_RESOLUTION =
  'Reload to see their brand (your changes here are discarded), or keep editing: your next save then replaces their brand with yours.';

function conflictDetail(theirs: BrandContext | undefined): string {
  const now = theirs === undefined ? '' : ` (it is now version ${String(theirs.version)})`;
  return `Someone else saved the brand since you opened it${now}, so your changes were not saved.`;
}

function BrandEditor({ workspaceId, loaded, readOnly, onReload }: BrandEditorProps) {
  // The version the form is based on: what Save sends as If-Match, and what "Unsaved changes" compares to.
  const [saved, setSaved] = useState(loaded);
  const [form, setForm] = useState(() => toForm(loaded));
  const { pending, error, run, clear } = useSubmit();
  // After a 412, the brand as someone else saved it (once loaded), to name the sections that differ.
  const [theirs, setTheirs] = useState<BrandContext>();
  const conflict = error?.code === 'precondition_failed';
  const saveButton = useRef<HTMLButtonElement>(null);
  // What the last save sent: its field errors each show until their field changes from it.
  const [sent, setSent] = useState<BrandDocument>();
  const [notice, showNotice] = useNotice();

  const document = useMemo(() => toDocument(form), [form]);
  const savedJson = useMemo(() => JSON.stringify(toDocument(toForm(saved))), [saved]);
  const changed = JSON.stringify(document) !== savedJson;
  const issues = useMemo(() => validate(form), [form]);
  const differing = useMemo(
    () => (theirs === undefined ? undefined : sectionsThatDiffer(document, toDocument(toForm(theirs)))),
    [document, theirs],
  );
  const unsaved = useUnsavedChanges(changed && !readOnly);
  const formRef = useRef<HTMLFormElement>(null);
  // The fields Save found marked invalid, "label: message" each; null once the form changes again.
  const [refused, setRefused] = useState<string[] | null>(null);

  /** The service's word on a field while it still holds what was sent; otherwise the live check's. */
  function errorAt(path: string): string | undefined {
    const live = issues.get(path);
    if (error === undefined || sent === undefined) return live;
    const unchanged = JSON.stringify(valueAt(document, path)) === JSON.stringify(valueAt(sent, path));
    const rejected = unchanged ? error.fieldError(path) : undefined;
    return rejected === undefined ? live : capitalize(rejected);
  }

  /** An edit: the last save's notice and refusal no longer describe the form. */
  function edit(update: (current: BrandForm) => BrandForm) {
    setForm(update);
    showNotice(null);
    setRefused(null);
  }

  function change<K extends keyof BrandForm>(key: K) {
    return (value: BrandForm[K]) => {
      edit((current) => ({ ...current, [key]: value }));
    };
  }

  function save(event: SubmitEvent) {
    event.preventDefault();
    showNotice(null);
    // What the page marks invalid (its own checks, or the service's word on a field not changed since) is
    // not sent: the first such field gets focus, and the alert names them all.
    const invalid = invalidFields(formRef.current);
    if (invalid.length > 0) {
      setRefused(invalid.map(describeInvalid));
      invalid[0]?.focus();
      return;
    }
    setRefused(null);
    setTheirs(undefined);
    const sentForm = form;
    setSent(document);
    const path = url('/api/v1/workspaces/{id}/brand', { id: workspaceId });
    run(
      // The version this save is based on: if someone else saved since, 412 instead of overwriting theirs.
      () => api.put(path, document, { headers: { 'if-match': versionEtag(saved.version) } }),
      (brand) => {
        setSaved(brand);
        // Rows typed during the save stay as they are; otherwise new entries learn their ids.
        setForm((current) => (current === sentForm ? adoptIds(current, brand) : current));
        showNotice('Saved');
      },
      (problem) => {
        if (problem.code !== 'precondition_failed') return;
        // Without it the alert still offers Reload; it just cannot say what differs.
        api.get(path).then(setTheirs, () => undefined);
      },
    );
  }

  /** Goes on from their version with the form as it is: the next Save replaces theirs, knowingly. */
  function keepEditing(base: BrandContext) {
    setSaved(base);
    setTheirs(undefined);
    clear();
    saveButton.current?.focus();
  }

  const section = { errorAt, readOnly };
  return (
    <>
      <PageHeader title="Brand">
        <p className="lead">
          What AI clients, pipelines and scripts read with a brand read key. Every field is returned, in this
          order.
        </p>
      </PageHeader>
      {readOnly && (
        <p className="callout">Only owners and admins can edit the brand. You can read it here.</p>
      )}
      <SectionNav />
      <div className="brand-layout">
        <form ref={formRef} onSubmit={save} className="brand-form" noValidate>
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
                  edit((current) => ({ ...current, colors, palette }));
                }}
                {...section}
              />
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
          </fieldset>
          {!readOnly && (
            <div className="save-bar">
              {refused !== null && (
                <div role="alert" className="alert">
                  <p className="alert-detail">
                    {plural(refused.length, 'field')} {refused.length === 1 ? 'needs' : 'need'} fixing before
                    the brand can be saved:
                  </p>
                  <ul className="alert-list">
                    {refused.map((line) => (
                      <li key={line}>{line}</li>
                    ))}
                  </ul>
                </div>
              )}
              {conflict ? (
                <ConflictAlert
                  detail={conflictDetail(theirs)}
                  resolution={CONFLICT_RESOLUTION}
                  onReload={onReload}
                  onKeepEditing={
                    theirs === undefined
                      ? undefined
                      : () => {
                          keepEditing(theirs);
                        }
                  }
                >
                  {differing !== undefined && <ConflictSections sections={differing} />}
                </ConflictAlert>
              ) : (
                <ProblemAlert error={error} />
              )}
              <div className="save-bar-row">
                <button ref={saveButton} type="submit" className="button button-primary" disabled={pending}>
                  Save brand
                </button>
                <StatusMessage message={notice} />
                {notice === null && (
                  <span className="muted">
                    {changed ? 'Unsaved changes' : `Version ${String(saved.version)}, saved`}
                  </span>
                )}
              </div>
            </div>
          )}
        </form>
        <BrandPreview document={document} saved={saved} changed={changed} />
      </div>
      {unsaved.dialog}
    </>
  );
}

/** What a save refused with 412 would have replaced: the sections where their brand and the form differ. */
function ConflictSections({ sections }: { sections: readonly SectionId[] }) {
  if (sections.length === 0) return <p>Their brand is the same as yours now: reloading loses nothing.</p>;
  return (
    <>
      <p>
        {sections.length === 1 ? 'This section differs' : 'These sections differ'} between their brand and
        yours:
      </p>
      <ul className="alert-list">
        {sections.map((id) => (
          <li key={id}>{sectionTitle(id)}</li>
        ))}
      </ul>
    </>
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
function SectionNav() {
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

/** The form's controls marked invalid, in the order of the page. */
function invalidFields(form: HTMLFormElement | null): HTMLElement[] {
  return Array.from(form?.querySelectorAll<HTMLElement>('[aria-invalid="true"]') ?? []);
}

/** "Knowledge entry 3 · Title: Must not be empty": the field's label (in its row's name), and its error. */
function describeInvalid(field: HTMLElement): string {
  const label =
    field instanceof HTMLInputElement ||
    field instanceof HTMLSelectElement ||
    field instanceof HTMLTextAreaElement
      ? (field.labels?.[0]?.textContent ?? '')
      : (field.getAttribute('aria-label') ?? '');
  const row = field.closest('fieldset.row-card')?.querySelector('legend')?.textContent;
  const error = document.getElementById(`${field.id}-error`)?.textContent;
  return [row, label].filter(Boolean).join(' · ') + (error ? `: ${error}` : '');
}
