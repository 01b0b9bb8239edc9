import { useState } from 'react';
import { api, url } from '../api';
import { scopeLabel } from '../oauthScopes';
import { useSignedIn } from '../session';
import type { OAuthGrant } from '../../../src/contract/oauth-consent';
import type { Workspace } from '../../../src/contract/workspaces';
import { useResource } from '../useResource';
import { ConfirmDialog } from './ConfirmDialog';
import { CopyButton } from './CopyButton';
import { DataTable } from './DataTable';
import { ProblemAlert } from './ProblemAlert';
import { RowButton } from './RowButton';
import { Time } from './Time';
import { canManage } from './WorkspaceGate';

interface ConnectedAppsProps {
  workspace: Workspace;
  onNotice: (message: string) => void;
}

/**
 * The apps people connected to this workspace with OAuth (docs/connect-ai-client.md "Connect an AI
 * client"), each a grant: members see their own, owners and admins everyone's. Revoking one stops the app
 * at its next request, as revoking a key does.
 */
export function ConnectedApps({ workspace, onNotice }: ConnectedAppsProps) {
  const { user } = useSignedIn();
  const grants = useResource(url('/api/v1/workspaces/{id}/oauth-grants', { id: workspace.id }));
  const [revoking, setRevoking] = useState<OAuthGrant | null>(null);
  // The console is served by the service itself: its origin is the service's public address.
  const mcpUrl = `${window.location.origin}/mcp`;
  const mayRevoke = (grant: OAuthGrant) => canManage(workspace) || grant.user_id === user.id;

  return (
    <section className="section">
      <h2>Connected apps</h2>
      <p className="section-description">
        AI clients such as Claude, ChatGPT, Cursor or VS Code connect by this address, then ask you to sign in
        here and allow them; each acts as the person who allowed it, in this workspace only, with the scopes
        shown. {canManage(workspace) ? 'You see everyone’s.' : 'You see the ones you connected.'}
      </p>
      <div className="copy-row">
        <code data-testid="mcp-url" className="copy-value">
          {mcpUrl}
        </code>
        <CopyButton text={mcpUrl} label="Copy MCP URL" onNotice={onNotice} />
      </div>
      <ProblemAlert error={grants.error} />
      {grants.data === undefined ? (
        grants.loading && <p className="muted">Loading connected apps…</p>
      ) : (
        <DataTable
          name="Connected apps"
          columns={[
            { header: 'App', rowHeader: true, cell: (grant) => grant.client_name },
            { header: 'User', cell: (grant) => grant.user_email },
            { header: 'Scopes', cell: (grant) => grant.scopes.map(scopeLabel).join(', ') },
            { header: 'Connected', cell: (grant) => <Time iso={grant.created_at} /> },
            {
              header: 'Last used',
              cell: (grant) =>
                grant.last_used_at === null ? 'Never' : <Time iso={grant.last_used_at} withTime />,
            },
          ]}
          rows={grants.data.grants}
          rowKey={(grant) => grant.id}
          actions={(grant) =>
            mayRevoke(grant) && (
              <RowButton
                action="Revoke"
                target={`${grant.client_name} for ${grant.user_email}`}
                danger
                onClick={() => {
                  setRevoking(grant);
                }}
              />
            )
          }
          emptyText="No apps connected yet. Add the address above as a custom connector (Claude.ai, ChatGPT) or an HTTP MCP server (Claude Code, Cursor, VS Code): the app sends you here to allow it. Each client’s steps: docs/connect-ai-client.md."
        />
      )}
      {revoking !== null && (
        <ConfirmDialog
          title={`Revoke ${revoking.client_name}?`}
          explanation={`${revoking.client_name} stops working for ${revoking.user_email} at its next request, everywhere. To use it again, connect it again from the app.`}
          confirmLabel="Revoke access"
          danger
          action={() =>
            api.delete(
              url('/api/v1/workspaces/{id}/oauth-grants/{grant_id}', {
                id: workspace.id,
                grant_id: revoking.id,
              }),
            )
          }
          onCancel={() => {
            setRevoking(null);
          }}
          onDone={() => {
            const revoked = revoking;
            setRevoking(null);
            grants.update(({ grants: list }) => ({
              grants: list.filter((grant) => grant.id !== revoked.id),
            }));
            onNotice(`${revoked.client_name} revoked`);
          }}
        />
      )}
    </section>
  );
}
