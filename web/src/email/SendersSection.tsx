import type { ApiError } from '../api';
import { CodeBlock } from '../components/CodeBlock';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { ProblemAlert } from '../components/ProblemAlert';
import { Time } from '../components/Time';
import type { EmailSender } from '../../../src/contract/email';

interface SendersSectionProps {
  workspaceId: string;
  /** Undefined while they load (the page loads them: the keys' example sends from one). */
  senders: EmailSender[] | undefined;
  error: ApiError | undefined;
}

/** The addresses and domains the workspace may send from, read-only: the operator adds them. */
export function SendersSection({ workspaceId, senders, error }: SendersSectionProps) {
  return (
    <section className="section">
      <h2>Allowed senders</h2>
      <p className="section-description">
        A message’s <code>from</code> must be one of these addresses, or at one of these domains; any other is
        refused with <code>sender_not_allowed</code>. The operator adds them:
      </p>
      <CodeBlock label="Add an allowed sender">
        {`npx brand-context email-senders add --workspace ${workspaceId} news@example.com   # or a domain: example.com`}
      </CodeBlock>
      <ProblemAlert error={error} />
      {senders === undefined ? (
        error === undefined && <p className="muted">Loading senders…</p>
      ) : (
        <DataTable
          name="Allowed senders"
          columns={[
            {
              header: 'Sender',
              rowHeader: true,
              className: 'cell-email',
              cell: (sender) => <Email address={sender.sender} />,
            },
            {
              header: 'Kind',
              cell: (sender) => (sender.kind === 'domain' ? 'Every address at the domain' : 'This address'),
            },
            { header: 'Added', cell: (sender) => <Time iso={sender.created_at} /> },
          ]}
          rows={senders}
          rowKey={(sender) => sender.sender}
          emptyText="No allowed senders yet: nothing can be sent until the operator adds one."
        />
      )}
    </section>
  );
}
