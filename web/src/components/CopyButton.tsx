import { copyText } from '../notice';

interface CopyButtonProps {
  /** What is copied. */
  text: string;
  /** The button's name: "Copy secret". */
  label: string;
  /** Shows "Copied", or how to copy by hand, in the caller's StatusMessage. */
  onNotice: (message: string) => void;
}

/** Copies a value to the clipboard; the caller places the notice, inside a dialog when there is one. */
export function CopyButton({ text, label, onNotice }: CopyButtonProps) {
  return (
    <button
      type="button"
      className="button"
      onClick={() => {
        copyText(text, onNotice);
      }}
    >
      {label}
    </button>
  );
}
