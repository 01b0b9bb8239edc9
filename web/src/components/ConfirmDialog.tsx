import type { ReactNode } from 'react';
import { useSubmit } from '../useSubmit';
import { Dialog } from './Dialog';
import { ProblemAlert } from './ProblemAlert';

interface ConfirmDialogProps<T> {
  /** The dialog's heading and accessible name: "Revoke newsletter pipeline?". */
  title: string;
  /** What confirming does, and what it cannot undo. */
  explanation: ReactNode;
  /** More to read or choose before confirming, below the explanation. */
  children?: ReactNode;
  confirmLabel: string;
  /** A red confirm button, for what cannot be undone. */
  danger?: boolean;
  /** Keeps confirm disabled, e.g. while what the dialog shows is still loading. */
  busy?: boolean;
  /** The request confirming sends; while it fails the dialog stays open and shows why. */
  action: () => Promise<T>;
  onDone: (result: T) => void;
  onCancel: () => void;
}

/** Asks before a write, runs it on confirm, and closes (through `onDone`) only once it succeeded. */
export function ConfirmDialog<T>({
  title,
  explanation,
  children,
  confirmLabel,
  danger = false,
  busy = false,
  action,
  onDone,
  onCancel,
}: ConfirmDialogProps<T>) {
  const confirm = useSubmit();
  return (
    <Dialog title={title} onClose={onCancel}>
      <div className="stack">
        <ProblemAlert error={confirm.error} />
        <p>{explanation}</p>
        {children}
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'button button-danger' : 'button button-primary'}
            disabled={confirm.pending || busy}
            onClick={() => {
              confirm.run(action, onDone);
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </div>
    </Dialog>
  );
}
