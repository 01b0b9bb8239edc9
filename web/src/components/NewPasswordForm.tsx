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
}

/** A password chosen twice, sent only when both agree (an invite, a password reset). */
export function NewPasswordForm({ label, submitLabel, pending, error, onSubmit }: NewPasswordFormProps) {
  const [password, setPassword] = useState('');
  const [repeated, setRepeated] = useState('');
  const [mismatch, setMismatch] = useState(false);

  function submit(event: SubmitEvent) {
    event.preventDefault();
    setMismatch(password !== repeated);
    if (password === repeated) onSubmit(password);
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
        hint="At least 12 characters."
        error={error?.fieldError('password')}
      />
      <TextField
        label={`Repeat ${label.toLowerCase()}`}
        type="password"
        autoComplete="new-password"
        required
        value={repeated}
        onChange={setRepeated}
        error={mismatch ? 'Does not match the password above.' : undefined}
      />
      <button type="submit" className="button button-primary button-block" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
