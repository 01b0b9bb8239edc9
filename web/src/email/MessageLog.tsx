import { useEffect, useState } from 'react';
import { workspacePath } from '../api';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { SelectField } from '../components/fields';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { Time } from '../components/Time';
import { capitalize } from '../format';
import { EMAIL_STATUSES, type EmailMessageSummary, type EmailStatus } from '../../../src/contract/email';
import { useLiveLog } from '../useLiveLog';
import { MessageDialog } from './MessageDialog';
import { Recipients, Tags } from './Recipients';

/** How often the log is loaded again while a shown message still has recipients to send to. */
const POLL_MS = 3000;

const STATUS_OPTIONS: { value: EmailStatus | ''; label: string }[] = [
  { value: '', label: 'All statuses' },
  ...EMAIL_STATUSES.map((status) => ({ value: status, label: capitalize(status) })),
];

/** A message is `queued` or `deferred` while any of its recipients is (messageStatus). */
function unsettled(message: EmailMessageSummary): boolean {
  return message.status === 'queued' || message.status === 'deferred';
}

/** The workspace's messages, newest first, by status: who each went to, and how each copy fared. */
export function MessageLog({ workspaceId }: { workspaceId: string }) {
  const [status, setStatus] = useState<EmailStatus | ''>('');
  const log = useLiveLog<EmailMessageSummary>(
    workspacePath(workspaceId, '/email-messages'),
    status === '' ? undefined : status,
  );
  const [viewing, setViewing] = useState<EmailMessageSummary | null>(null);
  const { items, refresh } = log;

  // While a message is being sent, its recipients' outcomes are fetched as they come.
  useEffect(() => {
    if (items === undefined || !items.some(unsettled)) return;
    const timer = setTimeout(refresh, POLL_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [items, refresh]);

  return (
    <section className="section">
      <div className="section-header">
        <div>
          <h2>Messages</h2>
          <p className="section-description">
            Newest first. Each recipient gets a copy of their own: <em>queued</em> until it is sent,{' '}
            <em>deferred</em> while the mail relay asks to try again later, then <em>sent</em>,{' '}
            <em>bounced</em> (the address is suppressed from then on) or <em>failed</em>.
          </p>
        </div>
        <div className="toolbar">
          <SelectField label="Status" value={status} options={STATUS_OPTIONS} onChange={setStatus} />
          <button type="button" className="button" onClick={refresh}>
            Refresh
          </button>
        </div>
      </div>
      <ProblemAlert error={log.error} />
      {items === undefined ? (
        <p className="muted">Loading messages…</p>
      ) : (
        <DataTable
          name="Messages"
          columns={[
            {
              header: 'Subject',
              rowHeader: true,
              className: 'cell-subject',
              cell: (message) => message.subject,
            },
            { header: 'From', className: 'cell-email', cell: (message) => <Email address={message.from} /> },
            {
              header: 'Recipients',
              className: 'cell-email',
              cell: (message) => <Recipients recipients={message.recipients} />,
            },
            { header: 'Tags', cell: (message) => <Tags tags={message.tags} /> },
            { header: 'Created', cell: (message) => <Time iso={message.created_at} withTime /> },
          ]}
          rows={items}
          rowKey={(message) => message.id}
          actions={(message) => (
            <RowButton
              action="Details"
              target={message.subject}
              onClick={() => {
                setViewing(message);
              }}
            />
          )}
          emptyText={status === '' ? 'No messages yet.' : `No ${status} messages.`}
        />
      )}
      {log.loadMore !== undefined && <LoadMoreButton onClick={log.loadMore} pending={log.loadingMore} />}
      {viewing !== null && (
        <MessageDialog
          workspaceId={workspaceId}
          message={viewing}
          onClose={() => {
            setViewing(null);
          }}
        />
      )}
    </section>
  );
}
