import { useState } from 'react';
import { api, url } from '../api';
import { plural } from '../format';
import type { Member, MemberCredentials } from '../../../src/contract/members';
import { useResource } from '../useResource';
import { ConfirmDialog } from './ConfirmDialog';
import { ProblemAlert } from './ProblemAlert';

interface RemoveMemberDialogProps {
  workspaceId: string;
  member: Member;
  onCancel: () => void;
  /** With what was revoked and disabled when the box was ticked; undefined otherwise. */
  onDone: (revoked: MemberCredentials | undefined) => void;
}

/** What a removal did, for the page's notice: "sam@acme.example removed; 2 keys revoked, 1 webhook endpoint disabled". */
export function removalNotice(email: string, revoked: MemberCredentials | undefined): string {
  if (revoked === undefined) return `${email} removed`;
  const keys = revoked.brand_keys.length + revoked.api_keys.length;
  return `${email} removed; ${plural(keys, 'key')} revoked, ${plural(revoked.webhooks.length, 'webhook endpoint')} disabled`;
}

/**
 * Asks before removing a member (docs/console.md "Console", Members), listing the keys and webhook endpoints they
 * created that still work: those belong to the workspace and outlive the membership unless the box is ticked,
 * which revokes and disables them in the same request (`?revoke_credentials=true`).
 */
export function RemoveMemberDialog({ workspaceId, member, onCancel, onDone }: RemoveMemberDialogProps) {
  const ids = { id: workspaceId, user_id: member.user_id };
  const made = useResource(url('/api/v1/workspaces/{id}/members/{user_id}/credentials', ids));
  const [revoke, setRevoke] = useState(false);
  const count =
    made.data && made.data.brand_keys.length + made.data.api_keys.length + made.data.webhooks.length;

  return (
    <ConfirmDialog
      title={`Remove ${member.email}?`}
      explanation="They lose access to this workspace at once."
      confirmLabel="Remove member"
      danger
      busy={made.loading}
      action={() =>
        api.delete(
          url('/api/v1/workspaces/{id}/members/{user_id}', ids, {
            revoke_credentials: revoke && count !== 0 ? 'true' : undefined,
          }),
        )
      }
      onDone={onDone}
      onCancel={onCancel}
    >
      {/* Without the list, the box is still offered: the service revokes whatever they made. */}
      <ProblemAlert error={made.error} />
      {made.data === undefined ? (
        made.loading && <p className="muted">Checking what they created…</p>
      ) : count === 0 ? (
        <p>They created no keys or webhook endpoints that still work.</p>
      ) : (
        <CreatedList made={made.data} />
      )}
      {count !== 0 && (
        <label className="choice">
          <input
            type="checkbox"
            checked={revoke}
            disabled={made.loading}
            onChange={(change) => {
              setRevoke(change.target.checked);
            }}
          />
          Also revoke their keys and disable their webhooks
        </label>
      )}
    </ConfirmDialog>
  );
}

/** The member's live keys and endpoints, each named as its listing shows it. */
function CreatedList({ made }: { made: MemberCredentials }) {
  return (
    <div>
      <p>
        They created these, which belong to the workspace and keep working after they leave unless you revoke
        them:
      </p>
      <ul className="created-list">
        {made.brand_keys.map((key) => (
          <li key={key.id}>
            Brand read key <strong>{key.name}</strong>{' '}
            <code className="key-mask">
              {key.prefix}…{key.last4}
            </code>
          </li>
        ))}
        {made.api_keys.map((key) => (
          <li key={key.id}>
            Workspace API key <strong>{key.name}</strong>{' '}
            <code className="key-mask">
              {key.prefix}…{key.last4}
            </code>
          </li>
        ))}
        {made.webhooks.map((webhook) => (
          <li key={webhook.id}>
            Webhook endpoint <span className="created-url">{webhook.url}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
