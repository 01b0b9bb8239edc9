import { workspacePath } from '../api';
import { PageHeader } from '../components/PageHeader';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { KeysSection } from '../email/KeysSection';
import { Mailbox } from '../email/Mailbox';
import { MessageLog } from '../email/MessageLog';
import { SendersSection } from '../email/SendersSection';
import { SuppressionsSection } from '../email/SuppressionsSection';
import type { EmailSender } from '../../../src/contract/email';
import type { Workspace } from '../../../src/contract/workspaces';
import { useResource } from '../useResource';

const LEAD =
  'Send your product’s transactional email — receipts, sign-in links, notifications — through this service, and follow what happened to each message.';

export const MANAGERS_ONLY = 'Only owners and admins see this workspace’s email.';

/** Settings → Email (README "Transactional email"): keys, senders, the message log, suppressions, the mailbox. */
export function EmailSettings() {
  const workspace = useWorkspace();
  if (!canManage(workspace))
    return (
      <>
        <PageHeader title="Email" eyebrow="Settings">
          <p className="lead">{LEAD}</p>
        </PageHeader>
        <p className="callout">{MANAGERS_ONLY}</p>
      </>
    );
  return <EmailSections workspace={workspace} />;
}

function EmailSections({ workspace }: { workspace: Workspace }) {
  // Listed in their own section, and the keys' example request sends from one of them.
  const senders = useResource<{ senders: EmailSender[] }>(workspacePath(workspace.id, '/email-senders'));

  return (
    <>
      <PageHeader title="Email" eyebrow="Settings">
        <p className="lead">{LEAD}</p>
      </PageHeader>
      <Mailbox workspaceId={workspace.id} />
      <KeysSection workspace={workspace} senders={senders.data?.senders} />
      <SendersSection workspaceId={workspace.id} senders={senders.data?.senders} error={senders.error} />
      <MessageLog workspaceId={workspace.id} />
      <SuppressionsSection workspaceId={workspace.id} />
    </>
  );
}
