import { Outlet, useOutletContext, useParams } from 'react-router';
import { useSignedIn } from '../session';
import type { Workspace } from '../../../src/contract/workspaces';
import { PageHeader } from './PageHeader';

/** Workspace pages get their workspace (and the caller's role in it) from here. */
export function WorkspaceGate() {
  const { workspaceId } = useParams();
  const { workspaces } = useSignedIn();
  const workspace = workspaces.find((candidate) => candidate.id === workspaceId);
  if (workspace === undefined)
    return (
      <PageHeader title="Workspace not found">
        <p>
          This workspace does not exist, or you are not one of its members. Pick one in the Workspace menu.
        </p>
      </PageHeader>
    );
  // Keyed by workspace: switching starts every page afresh instead of showing the last one's data.
  return <Outlet key={workspace.id} context={workspace} />;
}

export function useWorkspace(): Workspace {
  return useOutletContext<Workspace>();
}

/** Owners and admins manage keys, members and the brand; members read them. */
export function canManage(workspace: Workspace): boolean {
  return workspace.role === 'owner' || workspace.role === 'admin';
}
