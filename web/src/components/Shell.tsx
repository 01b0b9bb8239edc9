import { useState } from 'react';
import { NavLink, Outlet, useLocation, useMatch, useNavigate, useSearchParams } from 'react-router';
import { type ApiError, toApiError } from '../api';
import { useSignedIn, useSession } from '../session';
import { ProblemAlert } from './ProblemAlert';

const SECTIONS = [
  { path: 'brand', label: 'Brand' },
  { path: 'campaigns', label: 'Campaigns' },
  { path: 'members', label: 'Members' },
  { path: 'audit-log', label: 'Audit log' },
  { path: 'settings/agent-access', label: 'Agent Access' },
  { path: 'settings/webhooks', label: 'Webhooks' },
  { path: 'settings/email', label: 'Email' },
] as const;

/**
 * The section of a workspace path, so that switching workspaces stays on it (a campaign or a webhook
 * endpoint → its list).
 */
function sectionOf(pathname: string): string {
  const rest = pathname.split('/').slice(3).join('/');
  if (rest.startsWith('campaigns')) return 'campaigns';
  if (rest.startsWith('settings/webhooks')) return 'settings/webhooks';
  return rest || 'brand';
}

/** The frame of every signed-in page: top bar with the workspace switcher and Sign out, the Main nav. */
export function Shell() {
  const { user, workspaces } = useSignedIn();
  const { signOut } = useSession();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const [searchParams] = useSearchParams();
  const workspaceMatch = useMatch('/w/:workspaceId/*');
  const [signOutError, setSignOutError] = useState<ApiError>();

  // Account pages are not under a workspace: they remember the chosen one in ?workspace=.
  const workspaceId =
    workspaceMatch?.params.workspaceId ?? searchParams.get('workspace') ?? workspaces[0]?.id ?? '';

  function switchWorkspace(id: string) {
    if (workspaceMatch === null) void navigate({ search: `?workspace=${encodeURIComponent(id)}` });
    else void navigate(`/w/${encodeURIComponent(id)}/${sectionOf(pathname)}`);
  }

  function handleSignOut() {
    // On success the session ends and RequireSession takes the page to Sign in.
    signOut().catch((error: unknown) => {
      setSignOutError(toApiError(error));
    });
  }

  const base = `/w/${encodeURIComponent(workspaceId)}`;
  return (
    <div className="shell">
      <a className="skip-link" href="#content">
        Skip to content
      </a>
      <header className="topbar">
        {/* Not a link: "Brand Context" would be a second match for the nav's "Brand". */}
        <p className="brand-mark">
          <span className="brand-mark-dot" aria-hidden="true" />
          Brand Context
        </p>
        <div className="topbar-controls">
          {workspaces.length > 0 && (
            <div className="workspace-switcher">
              <label htmlFor="workspace-switcher">Workspace</label>
              <select
                id="workspace-switcher"
                value={workspaceId}
                onChange={(event) => {
                  switchWorkspace(event.target.value);
                }}
              >
                {workspaces.map((workspace) => (
                  <option key={workspace.id} value={workspace.id}>
                    {workspace.name}
                  </option>
                ))}
              </select>
            </div>
          )}
          <span className="topbar-user">{user.email}</span>
          <button type="button" className="button button-quiet sign-out" onClick={handleSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <div className="shell-body">
        <nav aria-label="Main" className="sidebar">
          {workspaces.length > 0 && (
            <ul>
              {SECTIONS.map((section) => (
                <li key={section.path}>
                  <NavLink to={`${base}/${section.path}`}>{section.label}</NavLink>
                </li>
              ))}
            </ul>
          )}
          <ul>
            <li>
              <NavLink to={`/account/tokens?workspace=${encodeURIComponent(workspaceId)}`}>
                Access tokens
              </NavLink>
            </li>
          </ul>
        </nav>
        <main id="content" className="content" tabIndex={-1}>
          <ProblemAlert error={signOutError} />
          <Outlet />
        </main>
      </div>
    </div>
  );
}
