import type { ReactNode } from 'react';
import { CodeBlock } from '../components/CodeBlock';
import { DetailDialog } from '../components/DetailDialog';
import { Time } from '../components/Time';
import type { CapturedEmail, EmailMessageSummary } from '../../../src/contract/email';
import { url } from '../api';
import { useResource } from '../useResource';

/**
 * The message's header lines as a mail client shows them, To and Cc as sent (names included), Bcc (in no
 * header) as the bare addresses, the client's own X- headers last.
 */
function headerLines(message: CapturedEmail): [name: string, value: ReactNode][] {
  const bcc = message.recipients
    .filter((recipient) => recipient.field === 'bcc')
    .map((recipient) => recipient.email);
  const lines: [string, ReactNode][] = [
    ['From', message.from],
    ['To', message.to.join(', ')],
    ['Cc', message.cc.join(', ')],
    ['Bcc', bcc.join(', ')],
    ['Reply-To', message.reply_to.join(', ')],
    ['Subject', message.subject],
    ['Date', <Time key="date" iso={message.created_at} withTime />],
    ...Object.entries(message.headers),
  ];
  return lines.filter(([, value]) => value !== '');
}

/** A web address in a text body; what ends a sentence around it is not part of it. */
const WEB_ADDRESS = /https?:\/\/[^\s<>"]*[^\s<>".,;:!?)'\]]/g;

/** A text body with its web addresses as links, each opening in a new tab, as a mail client shows them. */
function withLinks(text: string): ReactNode[] {
  const parts: ReactNode[] = [];
  let from = 0;
  for (const match of text.matchAll(WEB_ADDRESS)) {
    parts.push(text.slice(from, match.index));
    parts.push(
      <a key={match.index} href={match[0]} target="_blank" rel="noopener noreferrer">
        {match[0]}
      </a>,
    );
    from = match.index + match[0].length;
  }
  parts.push(text.slice(from));
  return parts;
}

interface CapturedDialogProps {
  workspaceId: string;
  message: EmailMessageSummary;
  onClose: () => void;
}

/**
 * A captured message as its recipient would get it (GET …/{id}/content): headers, the text body, and the
 * HTML body as sent (GET …/{id}/content.html) in a sandboxed frame that runs none of its scripts and
 * cannot reach the console.
 */
export function CapturedDialog({ workspaceId, message, onClose }: CapturedDialogProps) {
  const ids = { id: workspaceId, message_id: message.id };
  const content = useResource(url('/api/v1/workspaces/{id}/email-messages/{message_id}/content', ids));

  return (
    <DetailDialog
      title={message.subject}
      detail={content}
      loadingText="Loading the message…"
      onClose={onClose}
    >
      {(captured) => (
        <>
          <dl className="mail-headers">
            {headerLines(captured).map(([name, value]) => (
              <div key={name}>
                <dt>{name}</dt>
                <dd>{value}</dd>
              </div>
            ))}
          </dl>
          {captured.text !== null && (
            <>
              <h3>Text</h3>
              <CodeBlock label="Text body">{withLinks(captured.text)}</CodeBlock>
            </>
          )}
          {captured.html !== null && (
            <>
              <h3>HTML</h3>
              <p className="field-hint">
                As sent, with its styles; its links open in a new tab. Its scripts never run here and its
                remote images are not loaded: a mail client may show those.
              </p>
              {/* The body's own page (…/content.html: its policy loads nothing from the network), framed
                  sandboxed: no scripts, no forms, an origin of its own; its links open in a new tab, which
                  leaves the sandbox so that the page linked to works. */}
              <iframe
                className="mail-html"
                title="HTML body"
                sandbox="allow-popups allow-popups-to-escape-sandbox"
                src={`${url('/api/v1/workspaces/{id}/email-messages/{message_id}', ids)}/content.html`}
              />
            </>
          )}
        </>
      )}
    </DetailDialog>
  );
}
