import { type ReactNode, useCallback, useEffect, useRef } from 'react';
import { useBlocker } from 'react-router';
import { Dialog } from './components/Dialog';

interface UnsavedChanges {
  /** The "Leave without saving?" dialog while a navigation waits for an answer; render it with the page. */
  dialog: ReactNode;
  /** For a save that moves on by itself (a new draft's first save): the next navigation goes unasked. */
  leaveFreely: () => void;
}

/**
 * Asks before edits that are not saved are lost. The console's own links and the workspace switcher are
 * held by react-router's blocker until the dialog is answered; closing or reloading the tab gets the
 * browser's own question (beforeunload), the only one a page may ask there.
 */
export function useUnsavedChanges(dirty: boolean): UnsavedChanges {
  const leaving = useRef(false);
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) =>
      dirty && !leaving.current && currentLocation.pathname !== nextLocation.pathname,
  );

  useEffect(() => {
    if (!dirty) return;
    const ask = (event: BeforeUnloadEvent) => {
      event.preventDefault();
    };
    window.addEventListener('beforeunload', ask);
    return () => {
      window.removeEventListener('beforeunload', ask);
    };
  }, [dirty]);

  const leaveFreely = useCallback(() => {
    leaving.current = true;
  }, []);

  const dialog = blocker.state === 'blocked' && (
    <Dialog title="Leave without saving?" onClose={blocker.reset}>
      <div className="stack">
        <p>Your changes on this page are not saved yet. If you leave now, they are lost.</p>
        <div className="dialog-actions">
          <button type="button" className="button button-primary" onClick={blocker.reset}>
            Stay on this page
          </button>
          <button type="button" className="button button-danger" onClick={blocker.proceed}>
            Leave without saving
          </button>
        </div>
      </div>
    </Dialog>
  );
  return { dialog, leaveFreely };
}
