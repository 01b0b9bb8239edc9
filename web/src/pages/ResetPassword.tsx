import { type SubmitEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { linkPageError } from '../accountLinks';
import { api, url } from '../api';
import { AccountEmailField } from '../components/AccountEmailField';
import { AuthCard } from '../components/AuthCard';
import { NewPasswordForm } from '../components/NewPasswordForm';
import { ProblemAlert } from '../components/ProblemAlert';
import { StatusMessage } from '../components/StatusMessage';
import { useSubmit } from '../useSubmit';

/**
 * "Forgot password?" (docs/account-email.md "Account email"): without a token, asks for a reset link; with the token of the
 * link in the email, sets the new password.
 */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token');
  // Sign in passes on the address typed there.
  return token === null ? (
    <RequestLink email={params.get('email') ?? ''} />
  ) : (
    <ChooseNewPassword token={token} />
  );
}

function RequestLink({ email: typed }: { email: string }) {
  const [email, setEmail] = useState(typed);
  const [sent, setSent] = useState<string | null>(null);
  const { pending, error, run } = useSubmit();

  function submit(event: SubmitEvent) {
    event.preventDefault();
    setSent(null);
    run(
      () => api.post(url('/auth/v1/password-reset'), { email }),
      ({ message }) => {
        setSent(message);
      },
    );
  }

  return (
    <AuthCard title="Reset your password">
      <p className="muted">We email a link to choose a new password to the address of your account.</p>
      <ProblemAlert error={linkPageError(error, '')} />
      <StatusMessage message={sent} />
      <form onSubmit={submit} className="stack">
        <AccountEmailField value={email} onChange={setEmail} error={error?.fieldError('email')} />
        <button type="submit" className="button button-primary button-block" disabled={pending}>
          Send reset link
        </button>
      </form>
      <p>
        <Link to="/sign-in">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

function ChooseNewPassword({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const { pending, error, run, clear } = useSubmit();

  function confirm(password: string) {
    run(
      () => api.post(url('/auth/v1/password-reset/confirm'), { token, password }),
      () => {
        setDone(true);
      },
    );
  }

  return (
    <AuthCard title="Choose a new password">
      {done ? (
        <>
          <StatusMessage message="Your new password is set. Wherever you were signed in with the old one, you are signed out." />
          <p>
            <Link to="/sign-in">Sign in</Link>
          </p>
        </>
      ) : (
        <>
          <ProblemAlert error={linkPageError(error, 'Ask for a new link:')}>
            {error?.code === 'link_invalid' && (
              <p>
                <Link to="/reset-password">Send me a new link</Link>
              </p>
            )}
          </ProblemAlert>
          <NewPasswordForm
            label="New password"
            submitLabel="Set new password"
            pending={pending}
            error={error}
            onSubmit={confirm}
            onRefused={clear}
          />
        </>
      )}
    </AuthCard>
  );
}
