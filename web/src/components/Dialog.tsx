import { type MouseEvent, type ReactNode, useEffect, useId, useRef } from 'react';

interface DialogProps {
  title: string;
  /** Escape, a click outside, Cancel and Done all end here: the owner unmounts the dialog. */
  onClose: () => void;
  /**
   * Asked before Escape or a click outside closes the dialog (the browser's confirm): for what is lost
   * with it, such as a key shown once. Its own buttons (Done) close it without asking.
   */
  confirmClose?: string;
  children: ReactNode;
}

/** Whether a click landed outside the dialog's box: on its backdrop, which belongs to the dialog element. */
function outside(dialog: HTMLDialogElement, event: { clientX: number; clientY: number }): boolean {
  const box = dialog.getBoundingClientRect();
  return (
    event.clientX < box.left ||
    event.clientX > box.right ||
    event.clientY < box.top ||
    event.clientY > box.bottom
  );
}

/**
 * A modal `<dialog>`, open while mounted. showModal makes the rest of the page inert (focus stays inside)
 * and turns Escape into a cancel event; a click on the backdrop closes it like Escape. On unmount, focus
 * goes back to whatever opened it.
 */
export function Dialog({ title, onClose, confirmClose, children }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  // A press that starts inside (selecting the key's text) and ends outside is not a click outside.
  const pressedOutside = useRef(false);

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

  // A native confirm rather than a second modal: Chromium closes a modal opened without a click together
  // with the one beneath it on a single Escape.
  const mayClose = () => confirmClose === undefined || window.confirm(confirmClose);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(event) => {
        // Not cancelable (Escape again without a click in between): the browser closes it anyway, and
        // onClose below asks.
        if (!event.cancelable) return;
        event.preventDefault();
        if (mayClose()) onClose();
      }}
      // Chrome closes without a cancelable cancel event on a repeated Escape: ask all the same, and open it
      // again if the answer is no; otherwise keep React's state in step. (A close event from an earlier
      // close(), e.g. StrictMode's remount, finds the dialog open again: ignore it.)
      onClose={(event) => {
        const dialog = event.currentTarget;
        if (dialog.open) return;
        if (mayClose()) onClose();
        else dialog.showModal();
      }}
      onMouseDown={(event: MouseEvent<HTMLDialogElement>) => {
        pressedOutside.current = event.target === event.currentTarget && outside(event.currentTarget, event);
      }}
      onClick={(event: MouseEvent<HTMLDialogElement>) => {
        const backdrop = event.target === event.currentTarget && outside(event.currentTarget, event);
        if (backdrop && pressedOutside.current && mayClose()) onClose();
      }}
    >
      <h2 id={titleId} className="dialog-title">
        {title}
      </h2>
      {children}
    </dialog>
  );
}
