import { TextField } from './fields';

interface AccountEmailFieldProps {
  value: string;
  onChange: (value: string) => void;
  /** The service's word on the address, under the field. */
  error?: string | undefined;
}

/**
 * The address an account signs in with (Sign in, Forgot password?): the same field on both, so that a
 * password manager fills it as the account's username.
 */
export function AccountEmailField({ value, onChange, error }: AccountEmailFieldProps) {
  return (
    <TextField
      label="Email"
      type="email"
      autoComplete="username"
      required
      value={value}
      onChange={onChange}
      error={error}
    />
  );
}
