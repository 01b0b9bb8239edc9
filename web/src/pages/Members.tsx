import { type SubmitEvent, useEffect, useState } from 'react';
import { api, url } from '../api';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { SelectField, TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { RemoveMemberDialog, removalNotice } from '../components/RemoveMemberDialog';
import { RowButton } from '../components/RowButton';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { capitalize } from '../format';
import { useNotice } from '../notice';
import { useSignedIn } from '../session';
import type { AddedMember, Member, MemberInvite } from '../../../src/contract/members';
import { isOnlyOwner, type Role } from '../../../src/core/roles';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';

/** How often the page asks again while an invite it just sent is on its way. */
const INVITE_WATCH_INTERVAL_MS = 2000;
/** How long it keeps asking: an invite still queued after that waits for the delivery workers. */
const INVITE_WATCH_MS = 60_000;

/** An invite this page sent, followed until its email has settled. */
interface WatchedInvite {
  userId: string;
  email: string;
  until: number;
}

/** What became of an invite's email, once there is news: undefined while it is still queued. */
function inviteOutcome(email: string, invite: MemberInvite): string | undefined {
  const detail = invite.delivery_detail ?? 'no answer';
  switch (invite.delivery) {
    case 'sent':
      return `Invite sent to ${email}`;
    case 'captured':
      return `Invite to ${email} kept in the development mailbox (no SMTP_URL): Settings → Email`;
    case 'deferred':
      return `Invite to ${email} delayed: ${detail}. It is tried again.`;
    case 'bounced':
      return `Invite to ${email} bounced: ${detail} — check the address`;
    case 'failed':
    case 'suppressed':
      return `Invite to ${email} failed: ${detail}`;
    default:
      return undefined;
  }
}

// Each option a word, what the role may do under the select: a closed select cuts a long label at 390 px.
const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'member', label: 'Member' },
  { value: 'admin', label: 'Admin' },
  { value: 'owner', label: 'Owner' },
];

const ROLE_HINTS: Record<Role, string> = {
  member: 'Reads the brand and writes campaign drafts.',
  admin: 'Also manages the brand, keys and members.',
  owner: 'Everything, including adding and removing owners.',
};

export function Members() {
  const workspace = useWorkspace();
  const { user } = useSignedIn();
  const membersPath = url('/api/v1/workspaces/{id}/members', { id: workspace.id });
  const members = useResource(membersPath);
  const listed = members.data?.members;
  const [notice, showNotice] = useNotice();
  const [removing, setRemoving] = useState<Member | null>(null);
  const resending = useSubmit();
  const manage = canManage(workspace);
  const [watched, setWatched] = useState<WatchedInvite | null>(null);

  // Follows the invite just sent until its email settles (or for INVITE_WATCH_MS), then says what became of it.
  const { update } = members;
  useEffect(() => {
    if (watched === null) return;
    let current = true;
    const timer = setTimeout(() => {
      api.get(membersPath).then(
        (fresh) => {
          if (!current) return;
          update(() => fresh);
          const invite = fresh.members.find((member) => member.user_id === watched.userId)?.invite;
          const outcome = invite ? inviteOutcome(watched.email, invite) : undefined;
          if (outcome !== undefined) showNotice(outcome);
          // A new object asks again after the interval.
          setWatched(outcome === undefined && invite && Date.now() < watched.until ? { ...watched } : null);
        },
        () => {
          if (current) setWatched(null);
        },
      );
    }, INVITE_WATCH_INTERVAL_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [watched, membersPath, update, showNotice]);

  function watch(member: { user_id: string; email: string }) {
    setWatched({ userId: member.user_id, email: member.email, until: Date.now() + INVITE_WATCH_MS });
  }

  function resendInvite(member: Member) {
    resending.run(
      () =>
        api.post(
          url('/api/v1/workspaces/{id}/members/{user_id}/invite', {
            id: workspace.id,
            user_id: member.user_id,
          }),
        ),
      (invite) => {
        members.update(({ members: list }) => ({
          members: list.map((other) => (other.user_id === member.user_id ? { ...other, invite } : other)),
        }));
        showNotice(`New invite queued for ${member.email}`);
        watch(member);
      },
    );
  }

  return (
    <>
      <PageHeader title="Members">
        <p className="lead">Who can see and change this workspace, and how much.</p>
      </PageHeader>
      <StatusMessage message={notice} />
      {manage && (
        <AddMemberForm
          workspaceId={workspace.id}
          onAdded={({ temporary_password_set: withPassword, ...member }) => {
            members.update(({ members: list }) => ({ members: [...list, member] }));
            const how = withPassword
              ? ', with the temporary password'
              : member.invite === null
                ? ''
                : ': an invite to choose a password is on its way';
            showNotice(`${member.email} added as ${member.role}${how}`);
            if (member.invite !== null) watch(member);
          }}
        />
      )}
      <ProblemAlert error={members.error} />
      <ProblemAlert error={resending.error} />
      {listed === undefined ? (
        members.loading && <p className="muted">Loading members…</p>
      ) : (
        <DataTable
          name="Members"
          columns={[
            {
              header: 'Email',
              rowHeader: true,
              className: 'cell-email',
              cell: (member) => (
                <>
                  <Email address={member.email} />
                  {member.user_id === user.id && <span className="muted"> (you)</span>}
                  {member.invite !== null && <InviteState invite={member.invite} now={members.loadedAt} />}
                </>
              ),
            },
            {
              header: 'Role',
              cell: (member) => (
                <span className={`badge badge-role-${member.role}`}>{capitalize(member.role)}</span>
              ),
            },
            { header: 'Added', cell: (member) => <Time iso={member.created_at} /> },
          ]}
          rows={listed}
          rowKey={(member) => member.user_id}
          actions={
            manage
              ? (member) => (
                  <span className="row-buttons">
                    {member.invite !== null && (
                      <RowButton
                        action="Resend invite"
                        target={member.email}
                        disabled={resending.pending}
                        onClick={() => {
                          resendInvite(member);
                        }}
                      />
                    )}
                    {isOnlyOwner(member, listed) ? (
                      // The API refuses it (409 last_owner): say so instead of offering it.
                      <span
                        className="muted"
                        title="A workspace keeps at least one owner: add another owner before removing this one"
                      >
                        Only owner
                      </span>
                    ) : (
                      <RowButton
                        action="Remove"
                        target={member.email}
                        danger
                        onClick={() => {
                          setRemoving(member);
                        }}
                      />
                    )}
                  </span>
                )
              : undefined
          }
        />
      )}
      {removing !== null && (
        <RemoveMemberDialog
          workspaceId={workspace.id}
          member={removing}
          onCancel={() => {
            setRemoving(null);
          }}
          onDone={(revoked) => {
            setRemoving(null);
            members.update(({ members: list }) => ({
              members: list.filter((member) => member.user_id !== removing.user_id),
            }));
            showNotice(removalNotice(removing.email, revoked));
          }}
        />
      )}
    </>
  );
}

/**
 * A member who has not chosen a password yet: what became of their invite's email, and when its link stops
 * working, or that it has.
 */
function InviteState({ invite, now }: { invite: MemberInvite; now: number }) {
  const detail = invite.delivery_detail ?? 'no answer';
  if (invite.delivery === 'bounced' || invite.delivery === 'failed' || invite.delivery === 'suppressed') {
    return (
      <p className="cell-note cell-note-problem">
        {invite.delivery === 'bounced' ? 'Invite bounced' : 'Invite failed'}: {detail} — check the address,
        then resend it
      </p>
    );
  }
  if (Date.parse(invite.expires_at) <= now) return <p className="cell-note">Invite expired: resend it</p>;
  const state = {
    queued: 'Invite queued',
    deferred: `Invite delayed (${detail}), tried again`,
    sent: 'Invite sent',
    captured: 'Invite in the development mailbox',
  }[invite.delivery ?? 'sent'];
  return (
    <p className="cell-note">
      {state}, valid until <Time iso={invite.expires_at} withTime />
    </p>
  );
}

function AddMemberForm({
  workspaceId,
  onAdded,
}: {
  workspaceId: string;
  onAdded: (member: AddedMember) => void;
}) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [password, setPassword] = useState('');
  const { pending, error, run } = useSubmit();

  function submit(event: SubmitEvent) {
    event.preventDefault();
    const body = { email, role, ...(password !== '' && { password }) };
    run(
      () => api.post(url('/api/v1/workspaces/{id}/members', { id: workspaceId }), body),
      (member) => {
        setEmail('');
        // Out of the page as soon as it has done its job.
        setPassword('');
        onAdded(member);
      },
    );
  }

  return (
    <section className="section card">
      <h2>Add a member</h2>
      <ProblemAlert error={error} />
      <form onSubmit={submit} className="inline-form">
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={setEmail}
          required
          autoComplete="off"
          error={error?.fieldError('email')}
          className="grow"
        />
        <SelectField
          label="Role"
          value={role}
          options={ROLE_OPTIONS}
          onChange={setRole}
          hint={ROLE_HINTS[role]}
          error={error?.fieldError('role')}
        />
        <TextField
          label="Temporary password"
          type="password"
          value={password}
          onChange={setPassword}
          autoComplete="new-password"
          error={error?.fieldError('password')}
          hint="Optional. Without it, someone who has no password yet gets an email to choose one. With it (at least 12 characters), no email is sent: share it safely (in person or through a password manager, never in the same message as the address); they can change it with “Forgot password?” on the sign-in page."
          className="grow"
        />
        <button type="submit" className="button button-primary" disabled={pending}>
          Add member
        </button>
      </form>
    </section>
  );
}
