import { useState } from 'react';
import { api, url } from '../api';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { TextField } from '../components/fields';
import type { BrandContext } from '../../../src/core/brand-context';

interface RestoreDialogProps {
  workspaceId: string;
  version: number;
  /** The version the brand is at now: restoring makes the next one. */
  latest: number | undefined;
  /** With the brand as it is after the restore (a new version, or the same one when nothing differed). */
  onDone: (brand: BrandContext) => void;
  onCancel: () => void;
}

/**
 * "Restore version N?": restoring publishes a new version with that version's content (owners and admins,
 * review or not); nothing of the history is lost, so the dialog says so rather than warn.
 */
export function RestoreDialog({ workspaceId, version, latest, onDone, onCancel }: RestoreDialogProps) {
  const [note, setNote] = useState('');
  const number = String(version);
  const next = latest === undefined ? 'a new version' : `version ${String(latest + 1)}`;
  return (
    <ConfirmDialog
      title={`Restore version ${number}?`}
      explanation={
        <>
          The brand becomes what it was in version {number}, published as {next}: every reader gets it from
          then on. The history keeps every version, the current one included, so this can be undone by
          restoring again.
        </>
      }
      confirmLabel="Restore version"
      action={() =>
        api.post(
          url('/api/v1/workspaces/{id}/brand/versions/{version}/restore', {
            id: workspaceId,
            version: number,
          }),
          note.trim() === '' ? {} : { note: note.trim() },
        )
      }
      onDone={onDone}
      onCancel={onCancel}
    >
      <TextField
        label="Note"
        value={note}
        onChange={setNote}
        hint={`Optional, one line: why. Without one the history says “Restored version ${number}”.`}
      />
    </ConfirmDialog>
  );
}
