import { useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { url } from '../api';
import { BrandFields, SectionNav } from '../brand/BrandFields';
import { BrandPreview } from '../brand/BrandPreview';
import { toDocument, toForm } from '../brand/model';
import { RestoreDialog } from '../brand/RestoreDialog';
import { authorText, type BrandVersionEntry, sectionsText } from '../brand/versions';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import type { BrandContext } from '../../../src/core/brand-context';
import { useResource } from '../useResource';

/** One version of the brand, read-only, as the editor showed it then; Restore for owners and admins. */
export function BrandVersion() {
  const workspace = useWorkspace();
  const { version = '' } = useParams();
  const ids = { id: workspace.id, version };
  const brand = useResource(url('/api/v1/workspaces/{id}/brand/versions/{version}', ids));
  // Who made it and why: the history's first page names the recent versions, and the latest one.
  const history = useResource(url('/api/v1/workspaces/{id}/brand/versions', { id: workspace.id }));
  const historyPath = `/w/${workspace.id}/brand/history`;
  const title = `Version ${version}`;
  const back = (
    <p className="back-link">
      <Link to={historyPath}>All versions</Link>
    </p>
  );
  if (brand.data === undefined)
    return (
      <>
        {back}
        <PageHeader title={title} eyebrow="Brand history" />
        <ProblemAlert error={brand.error} />
        {brand.loading && <p className="muted">Loading the version…</p>}
      </>
    );
  const entries = history.data?.items ?? [];
  return (
    <>
      {back}
      <VersionView
        key={brand.loadedAt}
        workspaceId={workspace.id}
        brand={brand.data}
        entry={entries.find((item) => item.version === brand.data?.version)}
        latest={entries[0]?.version}
        manager={canManage(workspace)}
        historyPath={historyPath}
      />
    </>
  );
}

interface VersionViewProps {
  workspaceId: string;
  brand: BrandContext;
  /** Who made it and why, when the history's first page names it. */
  entry: BrandVersionEntry | undefined;
  latest: number | undefined;
  manager: boolean;
  historyPath: string;
}

function VersionView({ workspaceId, brand, entry, latest, manager, historyPath }: VersionViewProps) {
  const navigate = useNavigate();
  const [restoring, setRestoring] = useState(false);
  const form = useMemo(() => toForm(brand), [brand]);
  const document = useMemo(() => toDocument(form), [form]);
  const number = String(brand.version);
  const current = latest !== undefined && brand.version === latest;
  const compareTo =
    latest !== undefined && !current ? `${historyPath}?from=${number}&to=${String(latest)}` : undefined;

  return (
    <>
      <PageHeader
        title={`Version ${number}`}
        eyebrow="Brand history"
        actions={
          manager && !current ? (
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setRestoring(true);
              }}
            >
              Restore this version
            </button>
          ) : undefined
        }
      >
        <p className="lead">
          Saved <Time iso={brand.updated_at} withTime />
          {entry !== undefined && <> by {authorText(entry.created_by)}</>}.
          {entry?.note != null && <> Note: “{entry.note}”.</>}
          {entry !== undefined && <> Sections changed: {sectionsText(entry.sections_changed)}.</>}
        </p>
      </PageHeader>
      <p className="callout">
        {current
          ? 'This is the published version: readers get this brand now. '
          : 'An earlier version, read-only: it cannot be edited. '}
        {compareTo !== undefined && (
          <>
            <Link to={compareTo}>Compare it with the published version</Link>
            {manager ? ', or restore it to make it the brand again.' : '.'}
          </>
        )}
      </p>
      <SectionNav />
      <div className="brand-layout">
        <div className="brand-form">
          <BrandFields form={form} readOnly />
        </div>
        <BrandPreview document={document} saved={brand} changed={false} pinned />
      </div>
      {restoring && (
        <RestoreDialog
          workspaceId={workspaceId}
          version={brand.version}
          latest={latest}
          onCancel={() => {
            setRestoring(false);
          }}
          onDone={(restored) => {
            const notice =
              restored.version === latest
                ? `Version ${number} holds the brand as it is now: nothing to restore`
                : `Version ${number} restored as version ${String(restored.version)}`;
            void navigate(historyPath, { state: { notice } });
          }}
        />
      )}
    </>
  );
}
