import { useState } from 'react';
import { api, url } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { capitalize } from '../format';
import { useNotice } from '../notice';
import type { EmailSuppression } from '../../../src/contract/email';
import type { Resource } from '../useResource';

interface SuppressionsSectionProps {
  workspaceId: string;
  /** GET …/email-suppressions: the page loads it again when the message log sees a bounce. */
  list: Resource<{ suppressions: EmailSuppression[] }>;
}

/** Addresses the workspace no longer sends to because they bounced, and Remove to send to one again. */
export function SuppressionsSection({ workspaceId, list }: SuppressionsSectionProps) {
  const [removing, setRemoving] = useState<EmailSuppression | null>(null);
  const [notice, showNotice] = useNotice();

  return (
    <section className="section">
      <h2>Suppressions</h2>
      <p className="section-description">
        When the mail relay refuses an address for good (a bounce), nothing more is sent to it from this
        workspace: later messages to it are <em>suppressed</em>. Remove an address once it works again.
      </p>
      <StatusMessage message={notice} />
      <ProblemAlert error={list.error} />
      {list.data === undefined ? (
        list.loading && <p className="muted">Loading suppressions…</p>
      ) : (
        <DataTable
          name="Suppressions"
          columns={[
            {
              header: 'Address',
              rowHeader: true,
              className: 'cell-email',
              cell: (suppression) => <Email address={suppression.email} />,
            },
            { header: 'Reason', cell: (suppression) => capitalize(suppression.reason) },
            {
              header: 'Detail',
              className: 'cell-error',
              cell: (suppression) => suppression.detail ?? <span className="muted">None</span>,
            },
            { header: 'Since', cell: (suppression) => <Time iso={suppression.created_at} withTime /> },
          ]}
          rows={list.data.suppressions}
          rowKey={(suppression) => suppression.email}
          actions={(suppression) => (
            <RowButton
              action="Remove"
              target={suppression.email}
              danger
              onClick={() => {
                showNotice(null);
                setRemoving(suppression);
              }}
            />
          )}
          emptyText="No suppressed addresses."
        />
      )}
      {removing !== null && (
        <ConfirmDialog
          title={`Send to ${removing.email} again?`}
          explanation={
            <>
              Messages to <code className="wrap-anywhere">{removing.email}</code> are sent again. If the
              address still bounces, it is suppressed again.
            </>
          }
          confirmLabel="Remove suppression"
          action={() =>
            api.delete(
              url('/api/v1/workspaces/{id}/email-suppressions/{email}', {
                id: workspaceId,
                email: removing.email,
              }),
            )
          }
          onCancel={() => {
            setRemoving(null);
          }}
          onDone={() => {
            const { email } = removing;
            setRemoving(null);
            list.update(({ suppressions }) => ({
              suppressions: suppressions.filter((suppression) => suppression.email !== email),
            }));
            showNotice(`${email} removed: messages to it are sent again`);
          }}
        />
      )}
    </section>
  );
}
