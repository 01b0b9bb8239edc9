import { Link, useNavigate } from 'react-router';
import { url } from '../api';
import { DataTable } from '../components/DataTable';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { useWorkspace } from '../components/WorkspaceGate';
import { usePagedResource } from '../usePagedResource';

export function Campaigns() {
  const workspace = useWorkspace();
  const list = usePagedResource(url('/api/v1/workspaces/{id}/campaigns', { id: workspace.id }));
  const base = `/w/${encodeURIComponent(workspace.id)}/campaigns`;
  const navigate = useNavigate();

  return (
    <>
      <PageHeader
        title="Campaign drafts"
        actions={
          <button
            type="button"
            className="button button-primary"
            onClick={() => {
              void navigate(`${base}/new`);
            }}
          >
            New draft
          </button>
        }
      >
        <p className="lead">
          Emails drafted by people, scripts and AI clients together. Nothing here is sent without a person.
        </p>
      </PageHeader>
      <ProblemAlert error={list.error} />
      {list.pages === undefined ? (
        list.loading && <p className="muted">Loading campaigns…</p>
      ) : (
        <DataTable
          name="Campaigns"
          columns={[
            {
              header: 'Name',
              rowHeader: true,
              cell: (campaign) => (
                <Link to={`${base}/${encodeURIComponent(campaign.id)}`}>{campaign.name}</Link>
              ),
            },
            {
              header: 'Subject',
              cell: (campaign) => campaign.subject || <span className="muted">No subject yet</span>,
            },
            { header: 'Status', cell: (campaign) => <StatusBadge status={campaign.status} /> },
            { header: 'Updated', cell: (campaign) => <Time iso={campaign.updated_at} withTime /> },
          ]}
          rows={list.pages.flatMap((page) => page.campaigns)}
          rowKey={(campaign) => campaign.id}
          emptyText="No campaigns yet. Start one with New draft, or let an AI client draft one."
        />
      )}
      {list.loadMore !== undefined && <LoadMoreButton onClick={list.loadMore} pending={list.loadingMore} />}
    </>
  );
}
