import { createContext, type ReactNode, use, useCallback, useEffect, useMemo, useState } from 'react';
import { type ApiError, api, onUnauthorized, setCsrfToken, toApiError, url } from './api';
import type { ConsoleSession } from '../../src/contract/session';
import type { Workspace } from '../../src/contract/workspaces';

type User = ConsoleSession['user'];

type SessionState =
  | { status: 'loading' }
  | { status: 'signed-out' }
  | { status: 'failed'; error: ApiError }
  | { status: 'signed-in'; user: User; workspaces: Workspace[]; installDir: string | null };

interface SessionValue {
  state: SessionState;
  signIn: (email: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  retry: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);

const SIGNED_OUT: SessionState = { status: 'signed-out' };

async function start(session: ConsoleSession): Promise<SessionState> {
  setCsrfToken(session.csrf_token);
  const { workspaces } = await api.get(url('/api/v1/workspaces'));
  return { status: 'signed-in', user: session.user, workspaces, installDir: session.install_dir };
}

/** Who is signed in, and their workspaces; the session itself is an HttpOnly cookie the console never sees. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let current = true;
    // The status, not GET /auth/v1/session: its 401 for a visitor not yet signed in would be logged by
    // the browser as an error on every first visit.
    api
      .get(url('/auth/v1/session/status'), { endSessionOn401: false })
      .then((status) => (status.signed_in ? start(status) : SIGNED_OUT))
      .then(
        (next) => {
          if (current) setState(next);
        },
        (error: unknown) => {
          const failure = toApiError(error);
          if (current) setState(failure.status === 401 ? SIGNED_OUT : { status: 'failed', error: failure });
        },
      );
    return () => {
      current = false;
    };
  }, [attempt]);

  useEffect(() => {
    onUnauthorized(() => {
      setCsrfToken(null);
      setState({ status: 'signed-out' });
    });
  }, []);

  const signIn = useCallback(async (email: string, password: string) => {
    const session = await api.post(url('/auth/v1/session'), { email, password }, { endSessionOn401: false });
    setState(await start(session));
  }, []);

  const signOut = useCallback(async () => {
    await api.delete(url('/auth/v1/session'));
    setCsrfToken(null);
    setState({ status: 'signed-out' });
  }, []);

  const retry = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((n) => n + 1);
  }, []);

  const value = useMemo(() => ({ state, signIn, signOut, retry }), [state, signIn, signOut, retry]);
  return <SessionContext value={value}>{children}</SessionContext>;
}

export function useSession(): SessionValue {
  const value = use(SessionContext);
  if (value === null) throw new Error('useSession is used outside SessionProvider');
  return value;
}

/** The signed-in user and their workspaces: for pages behind RequireSession only. */
export function useSignedIn(): Extract<SessionState, { status: 'signed-in' }> {
  const { state } = useSession();
  if (state.status !== 'signed-in') throw new Error('useSignedIn is used outside RequireSession');
  return state;
}
