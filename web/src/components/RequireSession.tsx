import { Navigate, Outlet, useLocation } from 'react-router';
import { useSession } from '../session';
import { ProblemAlert } from './ProblemAlert';

/** Signed-in pages render only with a session; without one, sign in and come back here. */
export function RequireSession() {
  const { state, retry } = useSession();
  const location = useLocation();
  if (state.status === 'loading') return <p className="loading-page">Loading…</p>;
  if (state.status === 'signed-out') return <Navigate to="/sign-in" replace state={{ from: location }} />;
  if (state.status === 'failed')
    return (
      <main className="centered-page">
        <h1>Brand Context is unavailable</h1>
        <ProblemAlert error={state.error} />
        <button type="button" className="button" onClick={retry}>
          Try again
        </button>
      </main>
    );
  return <Outlet />;
}
