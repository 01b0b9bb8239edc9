import { useCallback, useState } from 'react';
import { url } from '../api';
import { ManagersOnly } from '../components/ManagersOnly';
import { PageHeader } from '../components/PageHeader';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { KeysSection } from '../email/KeysSection';
import { Mailbox } from '../email/Mailbox';
import { MessageLog } from '../email/MessageLog';
import { SendersSection } from '../email/SendersSection';
import { SuppressionsSection } from '../email/SuppressionsSection';
import type { EmailStatus } from '../../../src/contract/email';
import type { Workspace } from '../../../src/contract/workspaces';
import { useLiveLog } from '../useLiveLog';
import { useResource } from '../useResource';

const LEAD =
  'Send your product’s transactional email — receipts, sign-in links, notifications — through this service, and follow what happened to each message.';

const MANAGERS_ONLY = 'Only owners and admins see this workspace’s email.';

/** Settings → Email (docs/email.md "Transactional email"): keys, senders, the message log, suppressions, the mailbox. */
export function EmailSettings() {
  const workspace = useWorkspace();
  if (!canManage(workspace))
    return <ManagersOnly title="Email" eyebrow="Settings" lead={LEAD} notice={MANAGERS_ONLY} />;
  return <EmailSections workspace={workspace} />;
}

function EmailSections({ workspace }: { workspace: Workspace }) {
  // Listed in their own section, and the keys' example request sends from one of them.
  const ids = { id: workspace.id };
  const senders = useResource(url('/api/v1/workspaces/{id}/email-senders', ids));
  const messages = url('/api/v1/workspaces/{id}/email-messages', ids);
  const [status, setStatus] = useState<EmailStatus | ''>('');
  const log = useLiveLog(messages, status === '' ? undefined : status);
  const mailbox = useLiveLog(messages, 'captured');
  const suppressions = useResource(url('/api/v1/workspaces/{id}/email-suppressions', ids));
  const refreshLog = log.refresh;
  const refreshMailbox = mailbox.refresh;
  const reloadSuppressions = suppressions.reload;

  // A message the log sees settle may have been captured, or have bounced and suppressed its address.
  const refreshAll = useCallback(() => {
    refreshLog();
    refreshMailbox();
    reloadSuppressions();
  }, [refreshLog, refreshMailbox, reloadSuppressions]);

  return (
    <>
      <PageHeader title="Email" eyebrow="Settings">
        <p className="lead">{LEAD}</p>
      </PageHeader>
      <Mailbox workspaceId={workspace.id} log={mailbox} />
      <KeysSection workspace={workspace} senders={senders.data?.senders} />
      <SendersSection workspaceId={workspace.id} senders={senders.data?.senders} error={senders.error} />
      <MessageLog
        workspaceId={workspace.id}
        log={log}
        status={status}
        onStatusChange={setStatus}
        onRefresh={refreshAll}
      />
      <SuppressionsSection workspaceId={workspace.id} list={suppressions} />
    </>
  );
}
