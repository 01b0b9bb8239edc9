import { type SubmitEvent, useState } from 'react';
import { api, workspacePath } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';
import { Email } from '../components/Email';
import { SelectField, TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { capitalize } from '../format';
import { useNotice } from '../notice';
import { useSignedIn } from '../session';
import type { AddedMember, Member, MemberInvite } from '../../../src/contract/members';
import type { Role } from '../../../src/core/roles';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';

const ROLE_OPTIONS: { value: Role; label: string }[] = [
  { value: 'member', label: 'Member — reads the brand, writes campaign drafts' },
  { value: 'admin', label: 'Admin — also manages the brand, keys and members' },
  { value: 'owner', label: 'Owner — everything, including owners' },
];

export function Members() {
  const workspace = useWorkspace();
  const { user } = useSignedIn();
  const members = useResource<{ members: Member[] }>(workspacePath(workspace.id, '/members'));
  const [notice, showNotice] = useNotice();
  const [removing, setRemoving] = useState<Member | null>(null);
  const resending = useSubmit();
  const manage = canManage(workspace);

  function resendInvite(member: Member) {
    resending.run(
      () =>
        api.post<MemberInvite>(
          workspacePath(workspace.id, `/members/${encodeURIComponent(member.user_id)}/invite`),
        ),
      (invite) => {
        members.update(({ members: list }) => ({
          members: list.map((other) => (other.user_id === member.user_id ? { ...other, invite } : other)),
        }));
        showNotice(`Invite sent again to ${member.email}`);
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
          }}
        />
      )}
      <ProblemAlert error={members.error} />
      <ProblemAlert error={resending.error} />
      {members.data === undefined ? (
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
          rows={members.data.members}
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
                    <RowButton
                      action="Remove"
                      target={member.email}
                      danger
                      onClick={() => {
                        setRemoving(member);
                      }}
                    />
                  </span>
                )
              : undefined
          }
        />
      )}
      {removing !== null && (
        <ConfirmDialog
          title={`Remove ${removing.email}?`}
          explanation="They lose access to this workspace at once. Keys they created keep working until revoked."
          confirmLabel="Remove member"
          danger
          action={() =>
            api.delete(workspacePath(workspace.id, `/members/${encodeURIComponent(removing.user_id)}`))
          }
          onCancel={() => {
            setRemoving(null);
          }}
          onDone={() => {
            setRemoving(null);
            members.update(({ members: list }) => ({
              members: list.filter((member) => member.user_id !== removing.user_id),
            }));
            showNotice(`${removing.email} removed`);
          }}
        />
      )}
    </>
  );
}

/** A member who has not chosen a password yet: when their invite's link stops working, or that it has. */
function InviteState({ invite, now }: { invite: MemberInvite; now: number }) {
  return (
    <p className="cell-note">
      {Date.parse(invite.expires_at) > now ? (
        <>
          Invite sent, valid until <Time iso={invite.expires_at} withTime />
        </>
      ) : (
        'Invite expired: resend it'
      )}
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
      () => api.post<AddedMember>(workspacePath(workspaceId, '/members'), body),
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
