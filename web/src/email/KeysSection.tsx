import { KEY_KINDS } from '../../../src/core/key-kinds';
import { CodeBlock } from '../components/CodeBlock';
import { CopyButton } from '../components/CopyButton';
import { KeySection } from '../components/KeySection';
import { StatusMessage } from '../components/StatusMessage';
import { COPY_NOTICE, useNotice } from '../notice';
import type { EmailSender } from '../../../src/contract/email';
import type { Workspace } from '../../../src/contract/workspaces';

const kind = KEY_KINDS.email;

/** An address the workspace may send from: an allowed address itself, or one at an allowed domain. */
function exampleFrom(senders: EmailSender[] | undefined): string {
  const sender = senders?.[0];
  if (sender === undefined) return 'you@example.com';
  return sender.kind === 'address' ? sender.sender : `hello@${sender.sender}`;
}

/** POST /email/v1/messages as curl, ready to paste once the key is in the environment. */
function sendRequest(from: string): string {
  const body = {
    from,
    to: 'ada@example.com',
    subject: 'Your receipt',
    text: 'Thank you for your order.',
    tags: { kind: 'receipt' },
  };
  return [
    `curl -sS -X POST ${window.location.origin}/email/v1/messages \\`,
    `  -H "Authorization: Bearer $${kind.envVar}" \\`,
    "  -H 'Content-Type: application/json' \\",
    "  -H 'Idempotency-Key: receipt-1042' \\",
    `  -d '${JSON.stringify(body)}'`,
  ].join('\n');
}

interface KeysSectionProps {
  workspace: Workspace;
  senders: EmailSender[] | undefined;
}

/** The workspace's transactional email keys, read-only (the operator issues them), and how to send with one. */
export function KeysSection({ workspace, senders }: KeysSectionProps) {
  const [notice, showNotice] = useNotice(COPY_NOTICE);
  const request = sendRequest(exampleFrom(senders));

  return (
    <>
      <KeySection
        kind={kind}
        words={{
          description:
            'Each key sends this workspace’s email (POST /email/v1/messages) and nothing else. It lives until it is revoked, unless the operator gave it an expiry.',
        }}
        workspace={workspace}
        onNotice={showNotice}
      />
      <section className="section">
        <h2>Getting a key and sending</h2>
        <p className="section-description">
          Keys are issued by the operator of this service: ask them for one. They create it with
        </p>
        <CodeBlock label="Create a transactional email key">
          {`npx brand-context email-keys create --workspace ${workspace.id} --name <name>`}
        </CodeBlock>
        <p className="section-description">
          Keep the key in a server-side secret ({kind.envVar} below). A message is sent with one request; the
          same <code>Idempotency-Key</code> within 24 hours sends nothing twice:
        </p>
        <CodeBlock label="Send a message with curl">{request}</CodeBlock>
        <div className="button-row">
          <CopyButton text={request} label="Copy request" onNotice={showNotice} />
        </div>
        <StatusMessage message={notice} />
      </section>
    </>
  );
}
