import { capitalizedLabel, type KeyKind } from '../../core/key-kinds.js';

/** What account email says: a subject, and the same words as plain text and as simple HTML. */
export interface AccountMessage {
  subject: string;
  text: string;
  html: string;
}

const UTC = new Intl.DateTimeFormat('en-GB', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** "27 November 2026 at 10:00 UTC": links and keys end at a moment, wherever the reader is. */
function formatUtc(iso: string): string {
  return `${UTC.format(new Date(iso))} UTC`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${String(character.charCodeAt(0))};`);
}

/**
 * Paragraphs of text, each a line of the plain text and a `<p>` of the HTML; a link is its own paragraph,
 * shown as it is in both, so the reader sees where it leads.
 */
type Paragraph = string | { url: string };

function compose(subject: string, paragraphs: readonly Paragraph[]): AccountMessage {
  const text = paragraphs.map((paragraph) => (typeof paragraph === 'string' ? paragraph : paragraph.url));
  const html = paragraphs.map((paragraph) =>
    typeof paragraph === 'string'
      ? `<p>${escapeHtml(paragraph)}</p>`
      : `<p><a href="${escapeHtml(paragraph.url)}">${escapeHtml(paragraph.url)}</a></p>`,
  );
  return {
    // A workspace's or a key's name may hold a line break, which a header must not.
    subject: subject.replace(/\s+/g, ' '),
    text: `${text.join('\n\n')}\n`,
    html: `<!doctype html>\n<html><body>\n${html.join('\n')}\n</body></html>\n`,
  };
}

export function inviteMessage(invite: {
  workspaceName: string;
  /** Who added them: a user's email, or null for the operator. */
  invitedBy: string | null;
  link: string;
  expiresAt: string;
}): AccountMessage {
  const who = invite.invitedBy ?? 'The operator of Brand Context';
  return compose(`Join ${invite.workspaceName} on Brand Context`, [
    `${who} added you to the workspace "${invite.workspaceName}" on Brand Context.`,
    'Choose your password to sign in:',
    { url: invite.link },
    `The link works once, until ${formatUtc(invite.expiresAt)}. If you did not expect this, ignore this email.`,
  ]);
}

export function passwordResetMessage(reset: {
  email: string;
  link: string;
  expiresAt: string;
}): AccountMessage {
  return compose('Reset your Brand Context password', [
    `Someone, hopefully you, asked to reset the password of ${reset.email} on Brand Context. Choose a new password:`,
    { url: reset.link },
    `The link works once, until ${formatUtc(reset.expiresAt)}. A new password signs you out everywhere you were signed in.`,
    'If you did not ask for this, ignore this email: your password stays as it is.',
  ]);
}

export function keyExpiryMessage(notice: {
  kind: KeyKind;
  keyName: string;
  workspaceName: string;
  expiresAt: string;
}): AccountMessage {
  const { kind, keyName, workspaceName } = notice;
  const expires = formatUtc(notice.expiresAt);
  const replace =
    kind.managedBy === 'workspace'
      ? 'Create a replacement in Settings → Agent Access, move your integrations to it, then revoke this key.'
      : 'Ask the operator of Brand Context for a replacement, and move your integrations to it.';
  return compose(`Your ${kind.label} "${keyName}" expires on ${expires}`, [
    `${capitalizedLabel(kind)} "${keyName}" of the workspace "${workspaceName}" expires on ${expires}. From then on, whatever still uses it is refused.`,
    replace,
  ]);
}
