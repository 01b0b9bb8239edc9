import { type SubmitEvent, useState } from 'react';
import { capitalizedLabel, type KeyKind } from '../../../src/core/key-kinds';
import { api, url } from '../api';
import { daysUntil, plural } from '../format';
import type { CreatedKey, KeyView, ListedKey } from '../../../src/contract/keys';
import type { Workspace } from '../../../src/contract/workspaces';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';
import { ConfirmDialog } from './ConfirmDialog';
import { Creator } from './Creator';
import { DataTable } from './DataTable';
import { Dialog } from './Dialog';
import { TextField } from './fields';
import { ProblemAlert } from './ProblemAlert';
import { RowButton } from './RowButton';
import { SecretDialog } from './SecretDialog';
import { StatusBadge } from './StatusBadge';
import { Time } from './Time';
import { canManage } from './WorkspaceGate';

/** The console's own words for a kind of key, beside its row of KEY_KINDS (route, label). */
export interface KeySectionWords {
  description: string;
  /** The create button's label; none for the kinds the operator manages, which are listed read-only. */
  createButton?: string;
}

/** Under this many days an active key is flagged "Expires soon": time enough to rotate calmly. */
const EXPIRES_SOON_DAYS = 14;

interface KeySectionProps {
  kind: KeyKind;
  words: KeySectionWords;
  workspace: Workspace;
  onNotice: (message: string) => void;
}

/**
 * One kind of workspace key: create (shown once), list with status and expiry, revoke. The kinds the
 * operator manages (transactional email keys) are listed read-only: only the CLI creates and revokes them.
 */
export function KeySection({ kind, words, workspace, onNotice }: KeySectionProps) {
  const keys = useResource(
    url('/api/v1/workspaces/{id}/{collection}', { id: workspace.id, collection: kind.collection }),
  );
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ListedKey | null>(null);
  const manage = canManage(workspace) && kind.managedBy === 'workspace';
  const createButton = manage ? words.createButton : undefined;
  // The API lists keys to owners and admins only: members get the table's frame and the reason it is empty.
  const refused = keys.error?.code === 'insufficient_role';

  return (
    <section className="section">
      <div className="section-header">
        <div>
          <h2>{`${capitalizedLabel(kind)}s`}</h2>
          <p className="section-description">{words.description}</p>
        </div>
        {createButton !== undefined && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => {
              setCreating(true);
            }}
          >
            {createButton}
          </button>
        )}
      </div>
      <ProblemAlert error={refused ? undefined : keys.error} />
      {keys.data === undefined && !refused ? (
        keys.loading && <p className="muted">Loading keys…</p>
      ) : (
        <KeyTable
          kind={kind}
          keys={keys.data?.keys ?? []}
          emptyText={refused ? 'Only owners and admins can see the keys.' : 'No keys yet.'}
          now={keys.loadedAt}
          onRevoke={manage ? setRevoking : undefined}
        />
      )}
      {creating && (
        <CreateKeyDialog
          kind={kind}
          workspaceId={workspace.id}
          onCancel={() => {
            setCreating(false);
          }}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            keys.reload();
          }}
        />
      )}
      {created !== null && (
        <NewKeyDialog
          kind={kind}
          created={created}
          onDone={() => {
            // The key leaves React state here; it was never stored anywhere else.
            setCreated(null);
          }}
        />
      )}
      {revoking !== null && (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          explanation={
            <>
              Every request with{' '}
              <code>
                {revoking.prefix}…{revoking.last4}
              </code>{' '}
              fails from the next one on, everywhere. This cannot be undone.
            </>
          }
          confirmLabel="Revoke key"
          danger
          action={() =>
            api.delete(
              url('/api/v1/workspaces/{id}/{collection}/{key_id}', {
                id: workspace.id,
                collection: kind.collection,
                key_id: revoking.id,
              }),
            )
          }
          onCancel={() => {
            setRevoking(null);
          }}
          onDone={(revoked) => {
            setRevoking(null);
            // The revocation's answer has no creator: the listed one stays.
            keys.update(({ keys: list }) => ({
              keys: list.map((key) => (key.id === revoked.id ? { ...key, ...revoked } : key)),
            }));
            onNotice(`${revoked.name} revoked`);
          }}
        />
      )}
    </section>
  );
}

interface KeyTableProps {
  kind: KeyKind;
  keys: ListedKey[];
  emptyText: string;
  now: number;
  onRevoke: ((key: ListedKey) => void) | undefined;
}

function KeyTable({ kind, keys, emptyText, now, onRevoke }: KeyTableProps) {
  return (
    <DataTable
      name={`${capitalizedLabel(kind)}s`}
      columns={[
        { header: 'Name', rowHeader: true, cell: (key) => key.name },
        {
          header: 'Key',
          cell: (key) => (
            <code className="key-mask">
              {key.prefix}…{key.last4}
            </code>
          ),
        },
        { header: 'Status', cell: (key) => <StatusBadge status={key.status} /> },
        { header: 'Created', cell: (key) => <Time iso={key.created_at} /> },
        { header: 'Expires', cell: (key) => <Expiry keyItem={key} now={now} /> },
        {
          header: 'Last used',
          cell: (key) => (key.last_used_at === null ? 'Never' : <Time iso={key.last_used_at} withTime />),
        },
        {
          header: 'Created by',
          className: 'cell-email',
          // Null: made with the CLI (`brand-context keys create`), or by an account since deleted.
          cell: (key) => <Creator creator={key.creator} none="CLI" />,
        },
      ]}
      rows={keys}
      rowKey={(key) => key.id}
      actions={
        onRevoke &&
        ((key) =>
          key.status !== 'revoked' && (
            <RowButton
              action="Revoke"
              target={key.name}
              danger
              onClick={() => {
                onRevoke(key);
              }}
            />
          ))
      }
      emptyText={emptyText}
    />
  );
}

function Expiry({ keyItem, now }: { keyItem: KeyView; now: number }) {
  if (keyItem.expires_at === null) return 'Never';
  const days = daysUntil(keyItem.expires_at, now);
  const date = <Time iso={keyItem.expires_at} />;
  if (keyItem.status === 'revoked') return date;
  if (keyItem.status === 'expired' || days <= 0)
    return (
      <span className="expiry expiry-over">
        {date}
        <span className="expiry-note">expired</span>
      </span>
    );
  const soon = days < EXPIRES_SOON_DAYS;
  return (
    <span className={soon ? 'expiry expiry-soon' : 'expiry'}>
      {date}
      <span className="expiry-note">expires in {plural(days, 'day')}</span>
      {soon && <span className="badge badge-warning">Expires soon</span>}
    </span>
  );
}

interface CreateKeyDialogProps {
  kind: KeyKind;
  workspaceId: string;
  onCancel: () => void;
  onCreated: (key: CreatedKey) => void;
}

function CreateKeyDialog({ kind, workspaceId, onCancel, onCreated }: CreateKeyDialogProps) {
  const [name, setName] = useState('');
  const { pending, error, run } = useSubmit();

  function submit(event: SubmitEvent) {
    event.preventDefault();
    const target = url('/api/v1/workspaces/{id}/{collection}', {
      id: workspaceId,
      collection: kind.collection,
    });
    run(() => api.post(target, { name }), onCreated);
  }

  return (
    <Dialog title={`Create ${kind.label}`} onClose={onCancel}>
      <form onSubmit={submit} className="stack">
        <ProblemAlert error={error} />
        <TextField
          label="Key name"
          value={name}
          onChange={setName}
          required
          hint="Say where it will be used, e.g. “newsletter pipeline”. It expires in 90 days."
          error={error?.fieldError('name')}
        />
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={pending}>
            Create
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function NewKeyDialog({ kind, created, onDone }: { kind: KeyKind; created: CreatedKey; onDone: () => void }) {
  return (
    <SecretDialog
      title={`Your new ${kind.label}`}
      confirmClose="You will not see this key again. Close anyway?"
      intro={
        <p>
          <strong>{created.name}</strong> is active until{' '}
          {created.expires_at === null ? 'it is revoked' : <Time iso={created.expires_at} />}.
        </p>
      }
      label={capitalizedLabel(kind)}
      value={created.key}
      copyLabel="Copy key"
      advice={
        <p className="callout callout-warning">
          You will not see this key again. Store it in a server-side secret, never in client-side code or a
          repository.
        </p>
      }
      onDone={onDone}
    />
  );
}
