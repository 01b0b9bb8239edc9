import { useState } from 'react';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { LoadMoreButton } from '../components/LoadMoreButton';
import { RowButton } from '../components/RowButton';
import { Time } from '../components/Time';
import type { EmailMessageSummary } from '../../../src/contract/email';
import type { LiveLog } from '../useLiveLog';
import { CapturedDialog } from './CapturedDialog';

/**
 * The development mailbox: messages captured because no SMTP_URL is set, readable here with their bodies.
 * Shown only when there are some, so a service that sends its email never shows it.
 */
export function Mailbox({ workspaceId, log }: { workspaceId: string; log: LiveLog<EmailMessageSummary> }) {
  const [opened, setOpened] = useState<EmailMessageSummary | null>(null);
  const messages = log.items ?? [];
  if (messages.length === 0) return null;

  return (
    <section className="section">
      <h2>Development mailbox</h2>
      <p className="callout callout-warning">
        SMTP_URL is not set: email stays on this machine. Messages sent meanwhile are kept here (and printed
        by <code>npx brand-context mailbox</code>) instead of being delivered, so that you can read them while
        you develop. Set SMTP_URL to a mail relay before anyone relies on this service’s email.
      </p>
      <DataTable
        name="Captured messages"
        columns={[
          {
            header: 'Subject',
            rowHeader: true,
            className: 'cell-subject',
            cell: (message) => message.subject,
          },
          {
            header: 'To',
            className: 'cell-email',
            cell: (message) => (
              <ul className="recipient-list">
                {message.recipients.map((recipient) => (
                  <li key={recipient.email}>
                    <Email address={recipient.email} />
                  </li>
                ))}
              </ul>
            ),
          },
          { header: 'Created', cell: (message) => <Time iso={message.created_at} withTime /> },
        ]}
        rows={messages}
        rowKey={(message) => message.id}
        actions={(message) => (
          <RowButton
            action="Open"
            target={message.subject}
            onClick={() => {
              setOpened(message);
            }}
          />
        )}
      />
      {log.loadMore !== undefined && <LoadMoreButton onClick={log.loadMore} pending={log.loadingMore} />}
      {opened !== null && (
        <CapturedDialog
          workspaceId={workspaceId}
          message={opened}
          onClose={() => {
            setOpened(null);
          }}
        />
      )}
    </section>
  );
}
