import { type SubmitEvent, useState } from 'react';
import type { ApiError } from '../api';
import { TextField } from './fields';

interface NewPasswordFormProps {
  /** "Password", "New password": the second field repeats it. */
  label: string;
  submitLabel: string;
  pending: boolean;
  /** The last answer's error: the service's word on the password shows under its field. */
  error: ApiError | undefined;
  onSubmit: (password: string) => void;
  /** A submit the browser's checks refused, so nothing was sent: the last answer's error no longer applies. */
  onRefused: () => void;
}

/** The service's rule (src/core/inputs.ts passwordSchema), checked here first to answer at once. */
const MIN_PASSWORD_LENGTH = 12;

/** A password chosen twice, sent only when both agree (an invite, a password reset). */
export function NewPasswordForm({
  label,
  submitLabel,
  pending,
  error,
  onSubmit,
  onRefused,
}: NewPasswordFormProps) {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [checked, setChecked] = useState({ tooShort: false, mismatch: false });

  function submit(event: SubmitEvent) {
    event.preventDefault();
    const now = { tooShort: password.length < MIN_PASSWORD_LENGTH, mismatch: password !== repeated };
    setChecked(now);
    if (now.tooShort || now.mismatch) onRefused();
    else onSubmit(password);
  }

  return (
    <form onSubmit={submit} className="stack">
      <TextField
        label={label}
        type="password"
        autoComplete="new-password"
        required
        value={password}
        onChange={setPassword}
        hint={`At least ${String(MIN_PASSWORD_LENGTH)} characters.`}
        error={
          checked.tooShort
            ? `Too short: use at least ${String(MIN_PASSWORD_LENGTH)} characters.`
            : error?.fieldError('password')
        }
      />
      <TextField
        label={`Repeat ${label.toLowerCase()}`}
        type="password"
        autoComplete="new-password"
        required
        value={repeated}
        onChange={setRepeated}
        error={checked.mismatch ? 'Does not match the password above.' : undefined}
      />
      <button type="submit" className="button button-primary button-block" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
