import type { ReactNode } from 'react';
import { COPY_NOTICE, useNotice } from '../notice';
import { CopyButton } from './CopyButton';
import { Dialog } from './Dialog';
import { SecretField } from './SecretField';
import { StatusMessage } from './StatusMessage';

interface SecretDialogProps {
  title: string;
  /** Asked before Escape or a click outside closes it: for a secret that is never shown again. */
  confirmClose?: string;
  /** What the secret is for, above it. */
  intro: ReactNode;
  /** The textbox's label: "Signing secret". */
  label: string;
  value: string;
  /** The copy button's name: "Copy secret". */
  copyLabel: string;
  /** Where to keep it, below it (a callout). */
  advice: ReactNode;
  onDone: () => void;
}

/**
 * A secret just created, for copying. The "Copied" notice stays inside the dialog: showModal makes the
 * rest of the page inert, so a notice outside would reach no one.
 */
export function SecretDialog({
  title,
  confirmClose,
  intro,
  label,
  value,
  copyLabel,
  advice,
  onDone,
}: SecretDialogProps) {
  const [notice, showNotice] = useNotice(COPY_NOTICE);
  return (
    <Dialog title={title} onClose={onDone} confirmClose={confirmClose}>
      <div className="stack">
        {intro}
        <SecretField label={label} value={value} />
        {advice}
        <div className="dialog-actions">
          <StatusMessage message={notice} />
          <CopyButton text={value} label={copyLabel} onNotice={showNotice} />
          <button type="button" className="button button-primary" onClick={onDone}>
            Done
          </button>
        </div>
      </div>
    </Dialog>
  );
}
