import { Email } from '../components/Email';
import { StatusBadge } from '../components/StatusBadge';
import type { EmailRecipient } from '../../../src/contract/email';

/** How many recipients a log row names; the message's details list them all. */
const SHOWN = 3;

/** A message's recipients, each with where their copy is ("sent", "bounced", …). */
export function Recipients({ recipients }: { recipients: readonly EmailRecipient[] }) {
  const more = recipients.length - SHOWN;
  return (
    <ul className="recipient-list">
      {recipients.slice(0, SHOWN).map((recipient) => (
        <li key={recipient.email}>
          <span className="recipient-address">
            <Email address={recipient.email} />
          </span>
          <StatusBadge status={recipient.status} />
        </li>
      ))}
      {more > 0 && <li className="muted">and {more} more</li>}
    </ul>
  );
}

/** A message's tags as `name: value` lines; nothing for none. */
export function Tags({ tags }: { tags: Record<string, string> }) {
  const entries = Object.entries(tags);
  if (entries.length === 0) return <span className="muted">None</span>;
  return (
    <ul className="tag-list">
      {entries.map(([name, value]) => (
        <li key={name}>
          <code>
            {name}: {value}
          </code>
        </li>
      ))}
    </ul>
  );
}
