import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { type ApiError, api, toApiError, workspacePath } from '../api';
import { EmptyRow } from '../components/EmptyRow';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import { useWorkspace } from '../components/WorkspaceGate';
import type { CampaignSummary } from '../types';
import { useResource } from '../useResource';

interface CampaignPage {
  campaigns: CampaignSummary[];
  next_cursor: string | null;
}

export function Campaigns() {
  const workspace = useWorkspace();
  const path = workspacePath(workspace.id, '/campaigns');
  const first = useResource<CampaignPage>(path);
  const [more, setMore] = useState<CampaignPage[]>([]);
  const [error, setError] = useState<ApiError>();
  const [pending, setPending] = useState(false);

  const pages = first.data === undefined ? [] : [first.data, ...more];
  const campaigns = pages.flatMap((page) => page.campaigns);
  const cursor = pages.at(-1)?.next_cursor ?? null;
  const base = `/w/${encodeURIComponent(workspace.id)}/campaigns`;
  const navigate = useNavigate();

  function loadMore(from: string) {
    setPending(true);
    setError(undefined);
    api.get<CampaignPage>(`${path}?cursor=${encodeURIComponent(from)}`).then(
      (page) => {
        setMore((loaded) => [...loaded, page]);
        setPending(false);
      },
      (failure: unknown) => {
        setError(toApiError(failure));
        setPending(false);
      },
    );
  }

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
      <ProblemAlert error={first.error ?? error} />
      {first.data === undefined ? (
        first.loading && <p className="muted">Loading campaigns…</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Campaigns</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Subject</th>
                <th scope="col">Status</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {campaigns.length === 0 && (
                <EmptyRow columns={4}>
                  No campaigns yet. Start one with New draft, or let an AI client draft one.
                </EmptyRow>
              )}
              {campaigns.map((campaign) => (
                <tr key={campaign.id}>
                  <th scope="row" className="cell-name">
                    <Link to={`${base}/${encodeURIComponent(campaign.id)}`}>{campaign.name}</Link>
                  </th>
                  <td>{campaign.subject || <span className="muted">No subject yet</span>}</td>
                  <td>
                    <StatusBadge status={campaign.status} />
                  </td>
                  <td>
                    <Time iso={campaign.updated_at} withTime />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {cursor !== null && (
        <button
          type="button"
          className="button load-more"
          disabled={pending}
          onClick={() => {
            loadMore(cursor);
          }}
        >
          Load more
        </button>
      )}
    </>
  );
}
