import { type SubmitEvent, type ReactNode, useEffect, useMemo, useState } from 'react';
import { api, workspacePath } from '../api';
import { AssetsEditor } from '../brand/AssetsEditor';
import { ColorsEditor } from '../brand/ColorsEditor';
import { FontsEditor } from '../brand/FontsEditor';
import { KnowledgeEditor } from '../brand/KnowledgeEditor';
import { type BrandDocument, type BrandForm, toDocument, toForm, validate } from '../brand/model';
import { PreferencesEditor } from '../brand/PreferencesEditor';
import { previewJson } from '../brand/preview';
import { SkillsEditor } from '../brand/SkillsEditor';
import { SocialEditor } from '../brand/SocialEditor';
import { CodeBlock } from '../components/CodeBlock';
import { TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { capitalize } from '../format';
import { useNotice } from '../notice';
import type { BrandContext } from '../types';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';

export function Brand() {
  const workspace = useWorkspace();
  const brand = useResource<BrandContext>(workspacePath(workspace.id, '/brand'));
  if (brand.data === undefined)
    return (
      <>
        <PageHeader title="Brand" />
        <ProblemAlert error={brand.error} />
        {brand.loading && <p className="muted">Loading the brand…</p>}
      </>
    );
  return <BrandEditor workspaceId={workspace.id} loaded={brand.data} readOnly={!canManage(workspace)} />;
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
}

function BrandEditor({ workspaceId, loaded, readOnly }: BrandEditorProps) {
  const [saved, setSaved] = useState(loaded);
  const [form, setForm] = useState(() => toForm(loaded));
  const { pending, error, run } = useSubmit();
  // What the last save sent: its field errors each show until their field changes from it.
  const [sent, setSent] = useState<BrandDocument>();
  const [notice, showNotice] = useNotice();

  const document = useMemo(() => toDocument(form), [form]);
  const savedJson = useMemo(() => JSON.stringify(toDocument(toForm(saved))), [saved]);
  const changed = JSON.stringify(document) !== savedJson;
  const issues = useMemo(() => validate(form), [form]);

  useEffect(() => {
    if (!changed) return;
    // Unsaved edits: let the browser ask before the tab closes or reloads.
    const warn = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => {
      window.removeEventListener('beforeunload', warn);
    };
  }, [changed]);

  /** The service's word on a field while it still holds what was sent; otherwise the live check's. */
  function errorAt(path: string): string | undefined {
    const live = issues.get(path);
    if (error === undefined || sent === undefined) return live;
    const unchanged = JSON.stringify(valueAt(document, path)) === JSON.stringify(valueAt(sent, path));
    const rejected = unchanged ? error.fieldError(path) : undefined;
    return rejected === undefined ? live : capitalize(rejected);
  }

  function change<K extends keyof BrandForm>(key: K) {
    return (value: BrandForm[K]) => {
      setForm((current) => ({ ...current, [key]: value }));
      showNotice(null);
    };
  }

  function save(event: SubmitEvent) {
    event.preventDefault();
    const sentForm = form;
    setSent(document);
    showNotice(null);
    run(
      () => api.put<BrandContext>(workspacePath(workspaceId, '/brand'), document),
      (brand) => {
        setSaved(brand);
        // Rows typed during the save stay as they are; otherwise new entries learn their ids.
        setForm((current) => (current === sentForm ? adoptIds(current, brand) : current));
        showNotice('Saved');
      },
    );
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
      <div className="brand-layout">
        <form onSubmit={save} className="brand-form" noValidate>
          <fieldset disabled={readOnly} className="plain-fieldset">
            <legend className="visually-hidden">Brand</legend>
            <BrandSection id="identity" title="Identity">
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
            <BrandSection id="colors" title="Colors">
              <ColorsEditor
                value={{ colors: form.colors, palette: form.palette }}
                onChange={({ colors, palette }) => {
                  setForm((current) => ({ ...current, colors, palette }));
                  showNotice(null);
                }}
                {...section}
              />
            </BrandSection>
            <BrandSection id="fonts" title="Fonts">
              <FontsEditor value={form.fonts} onChange={change('fonts')} {...section} />
            </BrandSection>
            <BrandSection id="social" title="Social links">
              <SocialEditor value={form.social} onChange={change('social')} {...section} />
            </BrandSection>
            <BrandSection id="knowledge" title="Knowledge">
              <KnowledgeEditor value={form.knowledge} onChange={change('knowledge')} {...section} />
            </BrandSection>
            <BrandSection id="assets" title="Assets">
              <AssetsEditor value={form.assets} onChange={change('assets')} {...section} />
            </BrandSection>
            <BrandSection id="skills" title="Skills">
              <SkillsEditor value={form.skills} onChange={change('skills')} {...section} />
            </BrandSection>
            <BrandSection id="preferences" title="Preferences">
              <PreferencesEditor value={form.preferences} onChange={change('preferences')} {...section} />
            </BrandSection>
          </fieldset>
          {!readOnly && (
            <div className="save-bar">
              <ProblemAlert error={error} />
              <div className="save-bar-row">
                <button type="submit" className="button button-primary" disabled={pending}>
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
        <section aria-labelledby="preview-heading" className="brand-preview">
          <h2 id="preview-heading">Preview</h2>
          <p className="section-description">
            What <code>POST /functions/v1/brand-agent</code> returns {changed ? 'once you save' : 'now'}.
          </p>
          <CodeBlock label="Read operation response preview">
            {previewJson(document, saved, changed)}
          </CodeBlock>
        </section>
      </div>
    </>
  );
}

function BrandSection({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <section aria-labelledby={`${id}-heading`} className="section brand-section">
      <h2 id={`${id}-heading`}>{title}</h2>
      {children}
    </section>
  );
}
