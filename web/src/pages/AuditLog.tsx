import { url } from '../api';
import type { ReactNode } from 'react';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { ManagersOnly } from '../components/ManagersOnly';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import type { AuditActor, AuditEvent } from '../../../src/contract/audit';
import { formatDateTime } from '../format';
import { usePagedResource } from '../usePagedResource';

const PAGE_SIZE = 50;

function actorName(actor: AuditActor): ReactNode {
  switch (actor.type) {
    case 'user':
      return actor.email === null ? (actor.id ?? 'A deleted account') : <Email address={actor.email} />;
    case 'api_key':
      return `Workspace API key ${actor.id ?? ''}`.trim();
    case 'operator':
      return 'Operator (CLI)';
  }
}

/** A time as the service writes it (toISOString), which a detail such as a key's expiry may hold. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

function detailsText(details: AuditEvent['details']): string {
  return Object.entries(details)
    .map(([key, value]) => {
      const shown = typeof value === 'string' && ISO_TIME.test(value) ? formatDateTime(value) : String(value);
      return `${key.replaceAll('_', ' ')}: ${shown}`;
    })
    .join(' · ');
}

const LEAD = 'Who changed what, and when: keys, the brand, members, campaigns and webhooks — newest first.';

/** The workspace's audit log: owners and admins read it (audit.read); members are told so. */
export function AuditLog() {
  const workspace = useWorkspace();
  if (!canManage(workspace))
    return <ManagersOnly title="Audit log" lead={LEAD} notice="Only owners and admins see the audit log." />;
  return <AuditEvents workspaceId={workspace.id} />;
}

function AuditEvents({ workspaceId }: { workspaceId: string }) {
  const log = usePagedResource(
    url('/api/v1/workspaces/{id}/audit-log', { id: workspaceId }, { limit: String(PAGE_SIZE) }),
  );

  return (
    <>
      <PageHeader title="Audit log">
        <p className="lead">{LEAD}</p>
      </PageHeader>
      <ProblemAlert error={log.error} />
      {log.pages === undefined ? (
        log.loading && <p className="muted">Loading the audit log…</p>
      ) : (
        <DataTable
          name="Audit log"
          columns={[
            { header: 'When', cell: (event) => <Time iso={event.created_at} withTime /> },
            { header: 'Who', className: 'cell-email', cell: (event) => actorName(event.actor) },
            {
              header: 'Action',
              className: 'cell-nowrap',
              cell: (event) => <code>{event.action}</code>,
            },
            {
              header: 'Target',
              cell: (event) => (
                <div>
                  <span>
                    {event.target.type}
                    {event.target.id !== null && (
                      <>
                        {' '}
                        <code>{event.target.id}</code>
                      </>
                    )}
                  </span>
                  {Object.keys(event.details).length > 0 && (
                    <span className="cell-detail">{detailsText(event.details)}</span>
                  )}
                </div>
              ),
            },
          ]}
          rows={log.pages.flatMap((page) => page.events)}
          rowKey={(event) => event.id}
          emptyText="Nothing has happened in this workspace yet."
        />
      )}
      {log.loadMore !== undefined && <LoadMoreButton onClick={log.loadMore} pending={log.loadingMore} />}
    </>
  );
}
