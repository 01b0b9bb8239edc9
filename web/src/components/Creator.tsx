import type { CredentialCreator } from '../../../src/contract/credential-creator';
import { Email } from './Email';

/**
 * Who created a key or webhook endpoint (docs/management-api.md "Management API", removing a member), and a "Former member"
 * badge once they have left the workspace: what they made keeps working until someone revokes or disables it.
 * `none` names a creator the listing does not know (the CLI).
 */
export function Creator({ creator, none }: { creator: CredentialCreator | null; none: string }) {
  if (creator === null) return none;
  const who = creator.email === null ? creator.user_id : <Email address={creator.email} />;
  if (!creator.former_member) return who;
  return (
    <span className="status-stack">
      {who}
      <span
        className="badge badge-warning"
        title="No longer a member of this workspace: what they created keeps working until it is revoked or disabled"
      >
        Former member
      </span>
    </span>
  );
}
