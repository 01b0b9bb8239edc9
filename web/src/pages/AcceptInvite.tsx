import { Link, useNavigate, useSearchParams } from 'react-router';
import { linkPageError } from '../accountLinks';
import { api, url } from '../api';
import { AuthCard } from '../components/AuthCard';
import { NewPasswordForm } from '../components/NewPasswordForm';
import { ProblemAlert } from '../components/ProblemAlert';
import { useSession } from '../session';
import { useSubmit } from '../useSubmit';

/** The account a user token was issued to: its `email` claim (the token just came from the service). */
function emailOf(token: string): string {
  const payload = (token.split('.')[1] ?? '').replace(/-/g, '+').replace(/_/g, '/');
  const bytes = Uint8Array.from(atob(payload), (character) => character.charCodeAt(0));
  const { email } = JSON.parse(new TextDecoder().decode(bytes)) as { email?: unknown };
  if (typeof email !== 'string') throw new Error('The service answered without the account’s email.');
  return email;
}

/**
 * Where an invite email's link leads (docs/account-email.md "Account email"): the invited person chooses their password,
 * and is signed in to the console with it.
 */
export function AcceptInvite() {
  const [params] = useSearchParams();
  const token = params.get('token');
  const { signIn } = useSession();
  const navigate = useNavigate();
  const { pending, error, run, clear } = useSubmit();

  if (token === null) {
    return (
      <AuthCard title="Accept your invite">
        <p>
          This link is incomplete: open the link in your invite email again, or ask a workspace owner or admin
          to resend the invite.
        </p>
        <p>
          <Link to="/sign-in">Go to sign in</Link>
        </p>
      </AuthCard>
    );
  }

  function accept(password: string) {
    run(
      async () => {
        const session = await api.post(url('/auth/v1/invites/accept'), { token, password });
        // The answer is a bearer token; the console's own session is a cookie, made by signing in.
        await signIn(emailOf(session.access_token), password);
      },
      () => {
        void navigate('/', { replace: true });
      },
    );
  }

  return (
    <AuthCard title="Accept your invite">
      <p className="muted">Choose the password you will sign in with.</p>
      <ProblemAlert error={linkPageError(error, 'Ask a workspace owner or admin to resend your invite.')} />
      <NewPasswordForm
        label="Password"
        submitLabel="Set password and sign in"
        pending={pending}
        error={error}
        onSubmit={accept}
        onRefused={clear}
      />
    </AuthCard>
  );
}
