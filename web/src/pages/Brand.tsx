import { type SubmitEvent, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { type ApiError, api, toApiError, url } from '../api';
import { BrandDiff } from '../brand/BrandDiff';
import { BrandFields, SectionNav, sectionTitle } from '../brand/BrandFields';
import { BrandPreview } from '../brand/BrandPreview';
import {
  type BrandDocument,
  type BrandForm,
  type SectionId,
  sectionsThatDiffer,
  toDocument,
  toForm,
  validate,
} from '../brand/model';
import { brandSectionTitle, draftChanges } from '../brand/versions';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { ConflictAlert } from '../components/ConflictAlert';
import { TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { capitalize, plural } from '../format';
import { useNotice } from '../notice';
import type { BrandContext } from '../../../src/core/brand-context';
import { versionEtag } from '../../../src/core/entity-tags';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';
import { useUnsavedChanges } from '../useUnsavedChanges';

type Review = 'off' | 'required';

/** The brand as saved, and the ETag a save over it sends as If-Match (none for a draft not yet saved). */
interface Saved {
  brand: BrandContext;
  etag: string | null;
}

interface DraftState {
  /** The draft and its ETag ("draft-N"); null when there is none; undefined until loaded. */
  draft: Saved | null | undefined;
  error: ApiError | undefined;
  loadedAt: number;
  reload: () => void;
}

/** The workspace's brand draft while review is on (docs/brand-versions.md "Review"): its body and its ETag. */
function useDraft(workspaceId: string, enabled: boolean): DraftState {
  const [attempt, setAttempt] = useState(0);
  const [state, setState] = useState<Omit<DraftState, 'reload'>>({
    draft: undefined,
    error: undefined,
    loadedAt: 0,
  });
  useEffect(() => {
    if (!enabled) return;
    let current = true;
    let etag: string | null = null;
    api
      .get(url('/api/v1/workspaces/{id}/brand/draft', { id: workspaceId }), {
        onHeaders: (headers) => {
          etag = headers.get('etag');
        },
      })
      .then(
        (brand) => {
          if (current) setState({ draft: { brand, etag }, error: undefined, loadedAt: Date.now() });
        },
        (failure: unknown) => {
          const error = toApiError(failure);
          // No draft yet: the editor starts one from the published brand.
          const none = error.code === 'draft_not_found';
          if (current)
            setState({
              draft: none ? null : undefined,
              error: none ? undefined : error,
              loadedAt: Date.now(),
            });
        },
      );
    return () => {
      current = false;
    };
  }, [workspaceId, enabled, attempt]);
  const reload = useCallback(() => {
    setAttempt((n) => n + 1);
  }, []);
  return { ...state, reload };
}

export function Brand() {
  const workspace = useWorkspace();
  const manager = canManage(workspace);
  const settings = useResource(url('/api/v1/workspaces/{id}', { id: workspace.id }));
  const brand = useResource(url('/api/v1/workspaces/{id}/brand', { id: workspace.id }));
  // A setting that cannot be read (the alert says why) leaves the editor saving the brand directly.
  const review: Review | undefined = settings.data?.brand_review ?? (settings.error ? 'off' : undefined);
  const draft = useDraft(workspace.id, review === 'required');
  // What publishing, discarding or a change of the setting did: it outlives the editor it remounts.
  const [notice, showNotice] = useNotice();
  const [dirty, setDirty] = useState(false);
  const { reload: reloadBrand } = brand;
  const { reload: reloadDraft } = draft;
  const reloadAll = useCallback(() => {
    reloadBrand();
    reloadDraft();
  }, [reloadBrand, reloadDraft]);

  const draftReady = review === 'off' || draft.draft !== undefined;
  const published = brand.data;
  const ready = published !== undefined && review !== undefined && draftReady;
  return (
    <>
      <PageHeader
        title="Brand"
        actions={
          <Link to={`/w/${workspace.id}/brand/history`} className="button">
            History
          </Link>
        }
      >
        <p className="lead">
          What AI clients, pipelines and scripts read with a brand read key. Every field is returned, in this
          order.
        </p>
      </PageHeader>
      {manager && settings.data !== undefined && (
        <ReviewSetting
          workspaceId={workspace.id}
          review={settings.data.brand_review}
          locked={dirty}
          onChanged={(next) => {
            settings.update((data) => ({ ...data, brand_review: next }));
            showNotice(next === 'required' ? 'Review turned on' : 'Review turned off');
          }}
        />
      )}
      <StatusMessage message={notice} />
      <ProblemAlert error={brand.error ?? settings.error ?? draft.error} />
      {!ready ? (
        (brand.loading || settings.loading) && <p className="muted">Loading the brand…</p>
      ) : (
        // Each load (a Reload after a conflict included) starts the form afresh from what the service holds.
        <BrandEditor
          key={`${String(brand.loadedAt)} ${String(draft.loadedAt)} ${review}`}
          workspaceId={workspace.id}
          published={published}
          review={review}
          draft={review === 'required' ? (draft.draft ?? null) : null}
          manager={manager}
          onReload={reloadAll}
          onDirty={setDirty}
          onDone={(message) => {
            showNotice(message);
            reloadAll();
          }}
        />
      )}
    </>
  );
}

interface ReviewSettingProps {
  workspaceId: string;
  review: Review;
  /** While the form holds unsaved edits: changing the mode starts the editor afresh. */
  locked: boolean;
  onChanged: (review: Review) => void;
}

/** Owners and admins: whether changes of the brand wait in a draft for one of them to publish. */
function ReviewSetting({ workspaceId, review, locked, onChanged }: ReviewSettingProps) {
  const { pending, error, run } = useSubmit();
  return (
    <div className="review-setting">
      <label className="choice">
        <input
          type="checkbox"
          checked={review === 'required'}
          disabled={pending || locked}
          aria-describedby="review-setting-hint"
          onChange={(event) => {
            const next: Review = event.target.checked ? 'required' : 'off';
            run(
              () => api.patch(url('/api/v1/workspaces/{id}', { id: workspaceId }), { brand_review: next }),
              (workspace) => {
                onChanged(workspace.brand_review);
              },
            );
          }}
        />
        Require review before publishing
      </label>
      <p id="review-setting-hint" className="field-hint">
        {locked
          ? 'Save or undo your changes first.'
          : 'Changes wait in a draft that any member may edit, until an owner or admin publishes it.'}
      </p>
      <ProblemAlert error={error} />
    </div>
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
  /** The brand readers get now. */
  published: BrandContext;
  review: Review;
  /** With review required: the draft as saved, or null while there is none. */
  draft: Saved | null;
  manager: boolean;
  onReload: () => void;
  /** Told whether the form holds unsaved edits. */
  onDirty: (dirty: boolean) => void;
  /** After a publish or a discard: what to say, before everything loads again. */
  onDone: (notice: string) => void;
}

/** What a 412 means here: someone else saved the brand (or the draft) after this page loaded it. */
const CONFLICT_RESOLUTION =
  'Reload to see their brand (your changes here are discarded), or keep editing: your next save then replaces their brand with yours.';
const DRAFT_CONFLICT_RESOLUTION =
  'Reload to see their draft (your changes here are discarded), or keep editing: your next save then replaces their draft with yours.';

function conflictDetail(theirs: BrandContext | undefined): string {
  const now = theirs === undefined ? '' : ` (it is now version ${String(theirs.version)})`;
  return `Someone else saved the brand since you opened it${now}, so your changes were not saved.`;
}

const DRAFT_CONFLICT_DETAIL =
  'Someone else saved the draft since you opened it, so your changes were not saved.';

function BrandEditor({
  workspaceId,
  published,
  review,
  draft,
  manager,
  onReload,
  onDirty,
  onDone,
}: BrandEditorProps) {
  const drafting = review === 'required';
  // Members edit only the draft; with review off the brand is the owners' and admins'.
  const readOnly = !manager && !drafting;
  // What the form is based on: what Save sends as If-Match, and what "Unsaved changes" compares to.
  const [saved, setSaved] = useState<Saved>(
    () => draft ?? { brand: published, etag: drafting ? null : versionEtag(published.version) },
  );
  // Whether a draft exists (it may hold the published brand itself, saved unchanged).
  const [hasDraft, setHasDraft] = useState(draft !== null);
  const [form, setForm] = useState(() => toForm(saved.brand));
  const { pending, error, run, clear } = useSubmit();
  // After a 412, the brand (or draft) as someone else saved it (once loaded), to name the sections that differ.
  const [theirs, setTheirs] = useState<Saved>();
  const conflict = error?.code === 'precondition_failed' || error?.code === 'draft_precondition_failed';
  const saveButton = useRef<HTMLButtonElement>(null);
  // What the last save sent: its field errors each show until their field changes from it.
  const [sent, setSent] = useState<BrandDocument>();
  const [notice, showNotice] = useNotice();

  const document = useMemo(() => toDocument(form), [form]);
  const savedJson = useMemo(() => JSON.stringify(toDocument(toForm(saved.brand))), [saved]);
  const changed = JSON.stringify(document) !== savedJson;
  const issues = useMemo(() => validate(form), [form]);
  const differing = useMemo(
    () => (theirs === undefined ? undefined : sectionsThatDiffer(document, toDocument(toForm(theirs.brand)))),
    [document, theirs],
  );
  const unsaved = useUnsavedChanges(changed && !readOnly);
  const formRef = useRef<HTMLFormElement>(null);
  // The fields Save found marked invalid, "label: message" each; null once the form changes again.
  const [refused, setRefused] = useState<string[] | null>(null);

  useEffect(() => {
    onDirty(changed && !readOnly);
  }, [changed, readOnly, onDirty]);

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

  const brandPath = url('/api/v1/workspaces/{id}/brand', { id: workspaceId });
  const draftPath = url('/api/v1/workspaces/{id}/brand/draft', { id: workspaceId });

  /** Sends the form: to the brand, or with review on to the draft; answers what was saved, with its ETag. */
  async function send(document: BrandDocument, etag: string | null): Promise<Saved> {
    // The version this save is based on: if someone else saved since, 412 instead of overwriting theirs.
    const headers: Record<string, string> = etag === null ? {} : { 'if-match': etag };
    if (!drafting) {
      const brand = await api.put(brandPath, document, { headers });
      return { brand, etag: versionEtag(brand.version) };
    }
    let next: string | null = null;
    const brand = await api.put(draftPath, document, {
      headers,
      onHeaders: (answer) => {
        next = answer.get('etag');
      },
    });
    return { brand, etag: next };
  }

  /** What someone else saved, for the conflict alert to compare with the form. */
  async function loadTheirs(): Promise<Saved> {
    if (!drafting) {
      const brand = await api.get(brandPath);
      return { brand, etag: versionEtag(brand.version) };
    }
    let etag: string | null = null;
    const brand = await api.get(draftPath, {
      onHeaders: (answer) => {
        etag = answer.get('etag');
      },
    });
    return { brand, etag };
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
    run(
      () => send(document, saved.etag),
      (next) => {
        setSaved(next);
        if (drafting) setHasDraft(true);
        // Rows typed during the save stay as they are; otherwise new entries learn their ids.
        setForm((current) => (current === sentForm ? adoptIds(current, next.brand) : current));
        showNotice(drafting ? 'Draft saved' : 'Saved');
      },
      (problem) => {
        if (problem.code !== 'precondition_failed' && problem.code !== 'draft_precondition_failed') return;
        // Without it the alert still offers Reload; it just cannot say what differs.
        loadTheirs().then(setTheirs, () => undefined);
      },
    );
  }

  /** Goes on from their version with the form as it is: the next Save replaces theirs, knowingly. */
  function keepEditing(base: Saved) {
    setSaved(base);
    setTheirs(undefined);
    clear();
    saveButton.current?.focus();
  }

  const status = changed
    ? 'Unsaved changes'
    : drafting
      ? hasDraft
        ? 'Draft saved'
        : `Version ${String(published.version)}, published`
      : `Version ${String(saved.brand.version)}, saved`;

  return (
    <>
      {readOnly && (
        <p className="callout">Only owners and admins can edit the brand. You can read it here.</p>
      )}
      {drafting && !manager && (
        <p className="callout">
          Changes to this brand are reviewed: you edit a draft, and an owner or admin publishes it.
        </p>
      )}
      {drafting && hasDraft && (
        <DraftBanner
          workspaceId={workspaceId}
          published={published}
          draft={saved}
          manager={manager}
          unsaved={changed}
          onDone={onDone}
        />
      )}
      <SectionNav />
      <div className="brand-layout">
        <form ref={formRef} onSubmit={save} className="brand-form" noValidate>
          <BrandFields form={form} onEdit={edit} errorAt={errorAt} readOnly={readOnly} />
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
                  detail={drafting ? DRAFT_CONFLICT_DETAIL : conflictDetail(theirs?.brand)}
                  resolution={drafting ? DRAFT_CONFLICT_RESOLUTION : CONFLICT_RESOLUTION}
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
                  {drafting ? 'Save draft' : 'Save brand'}
                </button>
                <StatusMessage message={notice} />
                {notice === null && <span className="muted">{status}</span>}
              </div>
            </div>
          )}
        </form>
        <BrandPreview
          document={document}
          saved={saved.brand}
          changed={changed}
          reviewed={drafting && (changed || hasDraft)}
        />
      </div>
      {unsaved.dialog}
    </>
  );
}

interface DraftBannerProps {
  workspaceId: string;
  published: BrandContext;
  draft: Saved;
  manager: boolean;
  /** The form holds edits the draft does not: Publish would leave them out. */
  unsaved: boolean;
  onDone: (notice: string) => void;
}

/**
 * "Unpublished changes": what the saved draft changes of the published brand, section by section, and for
 * owners and admins Publish (with a note) and Discard. Readers keep getting the published version meanwhile.
 */
function DraftBanner({ workspaceId, published, draft, manager, unsaved, onDone }: DraftBannerProps) {
  const [dialog, setDialog] = useState<'publish' | 'discard'>();
  const [note, setNote] = useState('');
  const changes = useMemo(() => draftChanges(published, draft.brand), [published, draft]);
  // The draft was saved against an earlier version: publishing it would refuse with draft_outdated.
  const outdated = draft.brand.version !== published.version;
  const sections = changes.map((change) => brandSectionTitle(change.section));
  const headers: Record<string, string> = draft.etag === null ? {} : { 'if-match': draft.etag };
  return (
    <section aria-labelledby="draft-banner-heading" className="callout draft-banner">
      <h2 id="draft-banner-heading">Unpublished changes</h2>
      <p>
        A draft saved <Time iso={draft.brand.updated_at} withTime />{' '}
        {changes.length === 0 ? 'holds the published brand unchanged.' : `changes ${sections.join(', ')}.`}{' '}
        Readers get version {published.version} until an owner or admin publishes it.
      </p>
      {outdated && (
        <p className="callout-warning">
          Version {published.version} was published after this draft was based on version{' '}
          {draft.brand.version}: save the draft again to base it on version {published.version} (what the
          draft holds replaces it), or discard the draft.
        </p>
      )}
      {changes.length > 0 && (
        <details className="draft-changes">
          <summary>Show the changes</summary>
          <BrandDiff sections={changes} fromLabel="Published" toLabel="Draft" />
        </details>
      )}
      {manager ? (
        <div className="button-row">
          <button
            type="button"
            className="button button-primary"
            disabled={unsaved}
            onClick={() => {
              setDialog('publish');
            }}
          >
            Publish
          </button>
          <button
            type="button"
            className="button button-danger-quiet"
            onClick={() => {
              setDialog('discard');
            }}
          >
            Discard draft
          </button>
          {unsaved && (
            <span className="muted">Save the draft first: Publish publishes the draft as saved.</span>
          )}
        </div>
      ) : (
        <p className="muted">Only owners and admins can publish or discard the draft.</p>
      )}
      {dialog === 'publish' && (
        <ConfirmDialog
          title="Publish the draft?"
          explanation={`Readers get the draft as version ${String(published.version + 1)} from now on. The history keeps version ${String(published.version)}.`}
          confirmLabel="Publish"
          action={() =>
            api.post(
              url('/api/v1/workspaces/{id}/brand/draft/publish', { id: workspaceId }),
              note.trim() === '' ? {} : { note: note.trim() },
              { headers },
            )
          }
          onDone={(brand) => {
            setDialog(undefined);
            onDone(`Published as version ${String(brand.version)}`);
          }}
          onCancel={() => {
            setDialog(undefined);
          }}
        >
          <TextField
            label="Note"
            value={note}
            onChange={setNote}
            hint="Optional, one line: what changed and why. The history shows it beside the version."
          />
        </ConfirmDialog>
      )}
      {dialog === 'discard' && (
        <ConfirmDialog
          title="Discard the draft?"
          explanation="Its changes are deleted, for everyone: the brand stays as published. This cannot be undone."
          confirmLabel="Discard draft"
          danger
          action={() => api.delete(url('/api/v1/workspaces/{id}/brand/draft', { id: workspaceId }))}
          onDone={() => {
            setDialog(undefined);
            onDone('Draft discarded');
          }}
          onCancel={() => {
            setDialog(undefined);
          }}
        />
      )}
    </section>
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
