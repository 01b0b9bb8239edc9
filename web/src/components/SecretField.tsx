import { TextField } from './fields';

/** A secret shown for copying: a readonly textbox in a monospace font, never spell-checked. */
export function SecretField({ label, value }: { label: string; value: string }) {
  return <TextField label={label} value={value} readOnly spellCheck={false} className="field-secret" />;
}
