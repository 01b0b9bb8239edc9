import { useState } from 'react';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { LogToolbar } from '../components/LogToolbar';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { Time } from '../components/Time';
import { EMAIL_STATUSES, type EmailMessageSummary, type EmailStatus } from '../../../src/contract/email';
import { type LiveLog, useRefreshWhile } from '../useLiveLog';
import { MessageDialog, POLL_MS, unsettled } from './MessageDialog';
import { Recipients, Tags } from './Recipients';

interface MessageLogProps {
  workspaceId: string;
  log: LiveLog<EmailMessageSummary>;
  /** The status shown ('' for all): the page holds it, so that its log loads the right list. */
  status: EmailStatus | '';
  onStatusChange: (status: EmailStatus | '') => void;
  /** Loads the log and the mailbox again: a message that settles may have been captured. */
  onRefresh: () => void;
}

/** The workspace's messages, newest first, by status: who each went to, and how each copy fared. */
export function MessageLog({ workspaceId, log, status, onStatusChange, onRefresh }: MessageLogProps) {
  const [viewing, setViewing] = useState<EmailMessageSummary | null>(null);
  const { items } = log;

  // While a message is being sent, its recipients' outcomes are fetched as they come.
  useRefreshWhile(items, unsettled, onRefresh, POLL_MS);

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
        <LogToolbar
          statuses={EMAIL_STATUSES}
          status={status}
          onStatusChange={onStatusChange}
          onRefresh={onRefresh}
        />
      </div>
      <ProblemAlert error={log.error} />
      {items === undefined ? (
        <p className="muted">Loading messages…</p>
      ) : (
        <DataTable
          name="Messages"
          columns={[
            {
              header: 'Message',
              rowHeader: true,
              className: 'cell-subject',
              cell: (message) => (
                <>
                  {message.subject}
                  <span className="cell-detail">
                    From <Email address={message.from} />
                  </span>
                </>
              ),
            },
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
