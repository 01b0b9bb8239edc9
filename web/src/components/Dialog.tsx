import { type ReactNode, useEffect, useId, useRef } from 'react';

interface DialogProps {
  title: string;
  /** Escape, Cancel and Done all end here: the owner unmounts the dialog. */
  onClose: () => void;
  children: ReactNode;
}

/**
 * A modal `<dialog>`, open while mounted. showModal makes the rest of the page inert (focus stays inside)
 * and turns Escape into a cancel event; on unmount, focus goes back to whatever opened it.
 */
export function Dialog({ title, onClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    dialog.showModal();
    return () => {
      dialog.close();
      // The opener may be gone (a revoked key's row loses its button): then the page heading takes focus.
      const target = opener?.isConnected ? opener : document.querySelector<HTMLElement>('main h1');
      target?.focus();
    };
  }, []);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      // Chrome closes without a cancel event on a repeated Escape: keep React's state in step. (A close
      // event from an earlier close(), e.g. StrictMode's remount, finds the dialog open again: ignore it.)
      onClose={(event) => {
        if (!event.currentTarget.open) onClose();
      }}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}
