import { type SubmitEvent, useState } from 'react';
import { Link, Navigate, useLocation } from 'react-router';
import { AccountEmailField } from '../components/AccountEmailField';
import { AuthCard } from '../components/AuthCard';
import { TextField } from '../components/fields';
import { ProblemAlert } from '../components/ProblemAlert';
import { useSession } from '../session';
import { useSubmit } from '../useSubmit';

/**
 * Where RequireSession came from, query included: the consent page (`/connect?client_id=…`) is nothing
 * without the authorization request in its query.
 */
function returnPath(state: unknown): string {
  if (typeof state !== 'object' || state === null || !('from' in state)) return '/';
  const { from } = state;
  if (typeof from !== 'object' || from === null || !('pathname' in from)) return '/';
  if (typeof from.pathname !== 'string') return '/';
  const search = 'search' in from && typeof from.search === 'string' ? from.search : '';
  return `${from.pathname}${search}`;
}

export function SignIn() {
  const { state, signIn } = useSession();
  const location = useLocation();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { pending, error, run } = useSubmit();

  // Also how a successful sign-in leaves: the session turns signed-in.
  if (state.status === 'signed-in') return <Navigate to={returnPath(location.state)} replace />;

  function submit(event: SubmitEvent) {
    event.preventDefault();
    run(() => signIn(email, password));
  }

  return (
    <AuthCard title="Sign in">
      <ProblemAlert error={error} />
      <form onSubmit={submit} className="stack">
        <AccountEmailField value={email} onChange={setEmail} />
        <TextField
          label="Password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onChange={setPassword}
        />
        <button type="submit" className="button button-primary button-block" disabled={pending}>
          Sign in
        </button>
      </form>
      <p>
        <Link
          to={
            email === '' ? '/reset-password' : `/reset-password?${new URLSearchParams({ email }).toString()}`
          }
        >
          Forgot password?
        </Link>
      </p>
    </AuthCard>
  );
}
