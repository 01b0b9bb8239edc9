import { TextField } from './fields';

/**
 * A secret shown for copying: a readonly textbox in a monospace font, never spell-checked. Several lines
 * that wrap anywhere, so that a key or token is seen whole (a one-line field cuts it at 390 px) and a
 * person can check it against what was pasted.
 */
export function SecretField({ label, value }: { label: string; value: string }) {
  return (
    <TextField
      label={label}
      value={value}
      readOnly
      multiline
      // Enough lines at 390 px where field-sizing (styles.css) does not size it to its content.
      rows={Math.max(1, Math.ceil(value.length / 32))}
      spellCheck={false}
      className="field-secret"
    />
  );
}
