import { type SubmitEvent, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { url } from '../api';
import { BrandDiff } from '../brand/BrandDiff';
import { RestoreDialog } from '../brand/RestoreDialog';
import { authorText, type BrandVersionEntry, sectionsText } from '../brand/versions';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { useNotice } from '../notice';
import { usePagedResource } from '../usePagedResource';
import { useResource } from '../useResource';

const LEAD =
  'Every change of the published brand is a version: who made it, when, why, and which sections it changed. Open one to read the brand as it was, compare two, or restore one.';

/** The brand's versions, newest first; two of them compared section by section; restoring one (managers). */
export function BrandHistory() {
  const workspace = useWorkspace();
  const manager = canManage(workspace);
  const history = usePagedResource(url('/api/v1/workspaces/{id}/brand/versions', { id: workspace.id }));
  const [restoring, setRestoring] = useState<number>();
  // A restore from a version's page comes back here with what it did.
  const arrived = (useLocation().state as { notice?: string } | null)?.notice;
  const [notice, showNotice] = useNotice({ initial: arrived ?? null });
  const versions = history.pages?.flatMap((page) => page.items) ?? [];
  const latest = versions[0]?.version;

  return (
    <>
      <p className="back-link">
        <Link to={`/w/${workspace.id}/brand`}>Back to the brand</Link>
      </p>
      <PageHeader title="Brand history">
        <p className="lead">{LEAD}</p>
      </PageHeader>
      <StatusMessage message={notice} />
      <ProblemAlert error={history.error} />
      {history.pages === undefined ? (
        history.loading && <p className="muted">Loading the history…</p>
      ) : (
        <>
          <DataTable
            name="Brand versions"
            columns={[
              {
                header: 'Version',
                rowHeader: true,
                cell: (entry: BrandVersionEntry) => (
                  <span className="status-stack">
                    <Link to={String(entry.version)}>Version {entry.version}</Link>
                    {entry.version === latest && <span className="badge badge-active">Published</span>}
                  </span>
                ),
              },
              { header: 'When', cell: (entry) => <Time iso={entry.created_at} withTime /> },
              {
                header: 'Who',
                className: 'cell-email',
                cell: (entry) =>
                  entry.created_by.type === 'user' && entry.created_by.email !== null ? (
                    <Email address={entry.created_by.email} />
                  ) : (
                    authorText(entry.created_by)
                  ),
              },
              {
                header: 'Note',
                className: 'wrap-anywhere',
                cell: (entry) => entry.note ?? <span className="muted">No note</span>,
              },
              { header: 'Sections changed', cell: (entry) => sectionsText(entry.sections_changed) },
            ]}
            rows={versions}
            rowKey={(entry) => String(entry.version)}
            actions={
              manager
                ? (entry) =>
                    entry.version === latest ? null : (
                      <RowButton
                        action="Restore"
                        target={`version ${String(entry.version)}`}
                        onClick={() => {
                          setRestoring(entry.version);
                        }}
                      />
                    )
                : undefined
            }
          />
          {history.loadMore !== undefined && (
            <LoadMoreButton onClick={history.loadMore} pending={history.loadingMore} />
          )}
          {!manager && <p className="muted">Only owners and admins can restore a version.</p>}
          <Compare workspaceId={workspace.id} versions={versions} />
        </>
      )}
      {restoring !== undefined && (
        <RestoreDialog
          workspaceId={workspace.id}
          version={restoring}
          latest={latest}
          onCancel={() => {
            setRestoring(undefined);
          }}
          onDone={(brand) => {
            const restored = restoring;
            setRestoring(undefined);
            showNotice(
              brand.version === latest
                ? `Version ${String(restored)} holds the brand as it is now: nothing to restore`
                : `Version ${String(restored)} restored as version ${String(brand.version)}`,
            );
            history.reload();
          }}
        />
      )}
    </>
  );
}

interface CompareProps {
  workspaceId: string;
  versions: readonly BrandVersionEntry[];
}

/** Two versions chosen by number (kept in the address: `?from=3&to=5`), and their differences per section. */
function Compare({ workspaceId, versions }: CompareProps) {
  const [params, setParams] = useSearchParams();
  const from = params.get('from');
  const to = params.get('to');
  const options = versions.map(({ version }) => String(version));
  const [fromChoice, setFromChoice] = useState(from ?? options[1] ?? options[0] ?? '');
  const [toChoice, setToChoice] = useState(to ?? options[0] ?? '');

  function compare(event: SubmitEvent) {
    event.preventDefault();
    setParams({ from: fromChoice, to: toChoice }, { replace: true });
  }

  return (
    <section aria-labelledby="compare-heading" className="section">
      <h2 id="compare-heading">Compare versions</h2>
      {options.length < 2 ? (
        <p className="muted">There is one version so far: nothing to compare it with.</p>
      ) : (
        <form className="inline-form compare-form" onSubmit={compare}>
          <VersionSelect label="From version" value={fromChoice} options={options} onChange={setFromChoice} />
          <VersionSelect label="To version" value={toChoice} options={options} onChange={setToChoice} />
          <button type="submit" className="button">
            Compare
          </button>
        </form>
      )}
      {from !== null && to !== null && <Differences workspaceId={workspaceId} from={from} to={to} />}
    </section>
  );
}

interface VersionSelectProps {
  label: string;
  value: string;
  options: readonly string[];
  onChange: (value: string) => void;
}

function VersionSelect({ label, value, options, onChange }: VersionSelectProps) {
  const id = `compare-${label.toLowerCase().replaceAll(' ', '-')}`;
  return (
    <div className="field field-narrow">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => {
          onChange(event.target.value);
        }}
      >
        {options.map((version) => (
          <option key={version} value={version}>
            Version {version}
          </option>
        ))}
      </select>
    </div>
  );
}

function Differences({ workspaceId, from, to }: { workspaceId: string; from: string; to: string }) {
  const diff = useResource(
    url('/api/v1/workspaces/{id}/brand/versions/{version}/diff', { id: workspaceId, version: to }, { from }),
  );
  return (
    <div className="stack" aria-live="polite">
      <ProblemAlert error={diff.error} />
      {diff.data === undefined ? (
        diff.loading && <p className="muted">Comparing…</p>
      ) : (
        <>
          <p>
            Version {diff.data.from} compared with version {diff.data.to}:{' '}
            {diff.data.sections.length === 0
              ? 'no section differs.'
              : `${String(diff.data.sections.length)} ${diff.data.sections.length === 1 ? 'section differs' : 'sections differ'}.`}
          </p>
          <BrandDiff
            sections={diff.data.sections}
            fromLabel={`Version ${String(diff.data.from)}`}
            toLabel={`Version ${String(diff.data.to)}`}
          />
        </>
      )}
    </div>
  );
}
