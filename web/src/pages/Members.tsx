import { type SubmitEvent, useState } from 'react';
import { api, workspacePath } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { DataTable } from '../components/DataTable';
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
import type { Member, Role } from '../types';
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
  const manage = canManage(workspace);

  return (
    <>
      <PageHeader title="Members">
        <p className="lead">Who can see and change this workspace, and how much.</p>
      </PageHeader>
      <StatusMessage message={notice} />
      {manage && (
        <AddMemberForm
          workspaceId={workspace.id}
          onAdded={(member) => {
            members.update(({ members: list }) => ({ members: [...list, member] }));
            showNotice(`${member.email} added as ${member.role}`);
          }}
        />
      )}
      <ProblemAlert error={members.error} />
      {members.data === undefined ? (
        members.loading && <p className="muted">Loading members…</p>
      ) : (
        <DataTable
          name="Members"
          columns={['Email', 'Role', 'Added']}
          actions={manage}
          rows={members.data.members}
        >
          {(member) => (
            <tr key={member.user_id}>
              <th scope="row" className="cell-name">
                {member.email}
                {member.user_id === user.id && <span className="muted"> (you)</span>}
              </th>
              <td>
                <span className={`badge badge-role-${member.role}`}>{capitalize(member.role)}</span>
              </td>
              <td>
                <Time iso={member.created_at} />
              </td>
              {manage && (
                <td className="cell-actions">
                  <RowButton
                    action="Remove"
                    target={member.email}
                    danger
                    onClick={() => {
                      setRemoving(member);
                    }}
                  />
                </td>
              )}
            </tr>
          )}
        </DataTable>
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

function AddMemberForm({ workspaceId, onAdded }: { workspaceId: string; onAdded: (member: Member) => void }) {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const { pending, error, run } = useSubmit();

  function submit(event: SubmitEvent) {
    event.preventDefault();
    run(
      () => api.post<Member>(workspacePath(workspaceId, '/members'), { email, role }),
      (member) => {
        setEmail('');
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
        <button type="submit" className="button button-primary" disabled={pending}>
          Add member
        </button>
      </form>
    </section>
  );
}
