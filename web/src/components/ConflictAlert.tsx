import type { ReactNode } from 'react';
import { useReveal } from '../useReveal';

interface ConflictAlertProps {
  /** What happened, in the words of the page ("Someone else changed this draft…"). */
  detail: string;
  /** What to do about it. */
  resolution: string;
  /** Loads the version someone else saved, discarding the edits on the page. */
  onReload: () => void;
  /** Offered where the page can go on from the newer version with the user's edits. */
  onKeepEditing?: (() => void) | undefined;
  /** Between the detail and the resolution: what changed, when the page knows. */
  children?: ReactNode;
}

/**
 * A save refused with 412 because someone else saved first (docs/console.md "Console"). Shown where the user
 * clicked Save, and focused there, with Reload (and, where offered, Keep editing).
 */
export function ConflictAlert({ detail, resolution, onReload, onKeepEditing, children }: ConflictAlertProps) {
  const ref = useReveal<HTMLDivElement>();
  return (
    <div ref={ref} role="alert" tabIndex={-1} className="alert">
      <p className="alert-detail">{detail}</p>
      {children}
      <p className="alert-resolution">{resolution}</p>
      <div className="alert-actions">
        <button type="button" className="button" onClick={onReload}>
          Reload
        </button>
        {onKeepEditing !== undefined && (
          <button type="button" className="button" onClick={onKeepEditing}>
            Keep editing
          </button>
        )}
      </div>
    </div>
  );
}
