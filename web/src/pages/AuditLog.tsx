import { useState } from 'react';
import { type ApiError, api, toApiError, workspacePath } from '../api';
import { EmptyRow } from '../components/EmptyRow';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { Time } from '../components/Time';
import { useWorkspace } from '../components/WorkspaceGate';
import type { AuditActor, AuditEvent } from '../types';
import { useResource } from '../useResource';

interface AuditPage {
  events: AuditEvent[];
  next_cursor: string | null;
}

const PAGE_SIZE = 50;

function actorName(actor: AuditActor): string {
  switch (actor.type) {
    case 'user':
      return actor.email ?? actor.id ?? 'A deleted account';
    case 'api_key':
      return `Workspace API key ${actor.id ?? ''}`.trim();
    case 'operator':
      return 'Operator (CLI)';
  }
}

function detailsText(details: AuditEvent['details']): string {
  return Object.entries(details)
    .map(([key, value]) => `${key.replaceAll('_', ' ')}: ${String(value)}`)
    .join(' · ');
}

export function AuditLog() {
  const workspace = useWorkspace();
  const path = workspacePath(workspace.id, '/audit-log');
  const first = useResource<AuditPage>(`${path}?limit=${String(PAGE_SIZE)}`);
  // Later pages, appended as they are asked for.
  const [more, setMore] = useState<AuditPage[]>([]);
  const [error, setError] = useState<ApiError>();
  const [pending, setPending] = useState(false);

  const pages = first.data === undefined ? [] : [first.data, ...more];
  const events = pages.flatMap((page) => page.events);
  const cursor = pages.at(-1)?.next_cursor ?? null;

  function loadMore(from: string) {
    setPending(true);
    setError(undefined);
    api.get<AuditPage>(`${path}?limit=${String(PAGE_SIZE)}&cursor=${encodeURIComponent(from)}`).then(
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
      <PageHeader title="Audit log">
        <p className="lead">
          Who created or revoked keys, changed the brand, or added or removed members — newest first.
        </p>
      </PageHeader>
      <ProblemAlert error={first.error ?? error} />
      {first.data === undefined ? (
        first.loading && <p className="muted">Loading the audit log…</p>
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Audit log</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
              </tr>
            </thead>
            <tbody>
              {events.length === 0 && (
                <EmptyRow columns={4}>Nothing has happened in this workspace yet.</EmptyRow>
              )}
              {events.map((event) => (
                <tr key={event.id}>
                  <td className="cell-nowrap">
                    <Time iso={event.created_at} withTime />
                  </td>
                  <td>{actorName(event.actor)}</td>
                  <td className="cell-nowrap">
                    <code>{event.action}</code>
                  </td>
                  <td>
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
