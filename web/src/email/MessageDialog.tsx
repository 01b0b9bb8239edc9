import { useMemo } from 'react';
import { url } from '../api';
import { DataTable } from '../components/DataTable';
import { DetailDialog } from '../components/DetailDialog';
import { Email } from '../components/Email';
import { Facts } from '../components/Facts';
import { StatusBadge } from '../components/StatusBadge';
import { Time } from '../components/Time';
import type { EmailMessageSummary } from '../../../src/contract/email';
import { useRefreshWhile } from '../useLiveLog';
import { useResource } from '../useResource';
import { Tags } from './Recipients';

/** How often a message still being sent is loaded again: the log's rows, and an open message's details. */
export const POLL_MS = 3000;

/** A message is `queued` or `deferred` while any of its recipients is (messageStatus). */
export function unsettled(message: EmailMessageSummary): boolean {
  return message.status === 'queued' || message.status === 'deferred';
}

interface MessageDialogProps {
  workspaceId: string;
  message: EmailMessageSummary;
  onClose: () => void;
}

/** One message: every recipient's status, and each status change with the relay's answer (GET …/{id}). */
export function MessageDialog({ workspaceId, message, onClose }: MessageDialogProps) {
  const detail = useResource(
    url('/api/v1/workspaces/{id}/email-messages/{message_id}', { id: workspaceId, message_id: message.id }),
  );
  const shown = detail.data ?? message;
  // While the message is being sent, its history is followed as it grows: each deferral, then the outcome.
  const loaded = useMemo(() => (detail.data === undefined ? undefined : [detail.data]), [detail.data]);
  useRefreshWhile(loaded, unsettled, detail.reload, POLL_MS);

  return (
    <DetailDialog
      title={message.subject}
      detail={detail}
      summary={
        <>
          <Facts
            facts={[
              ['Status', <StatusBadge status={shown.status} />],
              ['From', <Email address={shown.from} />],
              ['Created', <Time iso={shown.created_at} withTime />],
              ['Message ID', <code>{shown.id}</code>],
              ['Tags', <Tags tags={shown.tags} />],
            ]}
          />
          <h3>Recipients</h3>
          <DataTable
            name="Recipients"
            columns={[
              {
                header: 'Recipient',
                rowHeader: true,
                className: 'cell-email',
                cell: (recipient) => <Email address={recipient.email} />,
              },
              { header: 'Field', cell: (recipient) => recipient.field },
              { header: 'Status', cell: (recipient) => <StatusBadge status={recipient.status} /> },
            ]}
            rows={shown.recipients}
            rowKey={(recipient) => recipient.email}
          />
        </>
      }
      loadingText="Loading the message’s history…"
      onClose={onClose}
    >
      {(data) => (
        <>
          <h3>History</h3>
          <DataTable
            name="History"
            columns={[
              { header: 'When', rowHeader: true, cell: (event) => <Time iso={event.at} withTime /> },
              { header: 'Status', cell: (event) => <StatusBadge status={event.type} /> },
              {
                header: 'Recipient',
                className: 'cell-email',
                cell: (event) =>
                  event.recipient === null ? (
                    <span className="muted">Every recipient</span>
                  ) : (
                    <Email address={event.recipient} />
                  ),
              },
              {
                header: 'Detail',
                className: 'cell-error',
                cell: (event) => event.detail ?? <span className="muted">None</span>,
              },
            ]}
            rows={data.events}
            rowKey={(event) => `${event.at} ${event.type} ${event.recipient ?? ''}`}
          />
        </>
      )}
    </DetailDialog>
  );
}
