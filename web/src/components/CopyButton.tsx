import { useEffect, useState } from 'react';
import { copyText } from '../notice';

/** How long the button says "Copied" after a copy. */
const CONFIRM_MS = 2000;

interface CopyButtonProps {
  /** What is copied. */
  text: string;
  /** The button's name: "Copy secret". */
  label: string;
  /** Shows "Copied", or how to copy by hand, in the caller's StatusMessage (which screen readers announce). */
  onNotice: (message: string) => void;
}

/**
 * Copies a value to the clipboard. The button itself says "✓ Copied" for a moment, where the eye already is
 * (the caller's notice may be out of sight); the caller places the notice, inside a dialog when there is one.
 */
export function CopyButton({ text, label, onNotice }: CopyButtonProps) {
  // When the last copy succeeded: a new time restarts the confirmation on every click.
  const [copiedAt, setCopiedAt] = useState<number | null>(null);
  useEffect(() => {
    if (copiedAt === null) return;
    const timer = setTimeout(() => {
      setCopiedAt(null);
    }, CONFIRM_MS);
    return () => {
      clearTimeout(timer);
    };
  }, [copiedAt]);

  const copied = copiedAt !== null;
  return (
    <button
      type="button"
      className="button copy-button"
      data-copied={copied || undefined}
      onClick={() => {
        void copyText(text, onNotice).then((done) => {
          if (done) setCopiedAt(Date.now());
        });
      }}
    >
      {/* Both labels hold their place, the one not shown hidden (and out of the button's name): the button
          keeps its width as they swap. */}
      <span className={copied ? 'copy-label-hidden' : undefined}>{label}</span>
      <span className={copied ? undefined : 'copy-label-hidden'}>
        <span aria-hidden="true">✓ </span>Copied
      </span>
    </button>
  );
}
