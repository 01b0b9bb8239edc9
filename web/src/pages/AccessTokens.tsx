import { type SubmitEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { type ApiError, api, toApiError } from '../api';
import { CodeBlock } from '../components/CodeBlock';
import { Dialog } from '../components/Dialog';
import { EmptyRow } from '../components/EmptyRow';
import { TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { StatusBadge } from '../components/StatusBadge';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { COPY_NOTICE, copyText, useNotice } from '../notice';
import { useSignedIn } from '../session';
import type { AccessToken } from '../types';
import { useResource } from '../useResource';

const MAX_DAYS = 90;

type CreatedToken = AccessToken & { token: string };

/** The block README's MCP section documents for Claude Desktop and Cursor, filled in. */
function mcpConfig(token: string, workspaceId: string): string {
  const config = {
    mcpServers: {
      'brand-context': {
        command: 'npx',
        args: ['--prefix', '/path/to/brand-context', 'brand-context', 'mcp'],
        env: {
          BRAND_CONTEXT_URL: window.location.origin,
          BRAND_CONTEXT_ACCESS_TOKEN: token,
          ...(workspaceId !== '' && { BRAND_CONTEXT_WORKSPACE_ID: workspaceId }),
        },
      },
    },
  };
  return JSON.stringify(config, null, 2);
}

/** Personal access tokens: what AI clients (the MCP server) and scripts use to act as you. */
export function AccessTokens() {
  const { workspaces } = useSignedIn();
  const [searchParams] = useSearchParams();
  const workspaceId = searchParams.get('workspace') ?? workspaces[0]?.id ?? '';
  const tokens = useResource<{ tokens: AccessToken[] }>('/api/v1/tokens');
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<AccessToken | null>(null);
  const [notice, showNotice] = useNotice(COPY_NOTICE);

  return (
    <>
      <PageHeader title="Personal access tokens">
        <p className="lead">
          Tokens let AI clients such as Claude Desktop or Cursor, and your own scripts, act as you: they reach
          every workspace you belong to, with your role. Create one per client, and revoke it when the client
          goes.
        </p>
      </PageHeader>
      <StatusMessage message={notice} />
      {created === null ? (
        <CreateTokenForm
          onCreated={(token) => {
            setCreated(token);
            tokens.reload();
          }}
        />
      ) : (
        <section className="section card card-highlight">
          <h2>Your new access token</h2>
          <TextField
            label="Access token"
            value={created.token}
            readOnly
            spellCheck={false}
            className="field-secret"
          />
          <p className="callout callout-warning">
            You will not see this token again. Keep it in your AI client’s configuration or a secret store
            only.
          </p>
          <div className="button-row">
            <button
              type="button"
              className="button"
              onClick={() => {
                copyText(created.token, showNotice);
              }}
            >
              Copy token
            </button>
          </div>
          <h3>Connect an AI client</h3>
          <p>
            Paste this into Claude Desktop’s <code>claude_desktop_config.json</code> or Cursor’s{' '}
            <code>~/.cursor/mcp.json</code>, and replace <code>/path/to/brand-context</code> with where this
            service’s repository is checked out and built.
          </p>
          <CodeBlock label="MCP client configuration">{mcpConfig(created.token, workspaceId)}</CodeBlock>
          <div className="button-row">
            <button
              type="button"
              className="button"
              onClick={() => {
                copyText(mcpConfig(created.token, workspaceId), showNotice);
              }}
            >
              Copy configuration
            </button>
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                // The token leaves React state here; it was never stored anywhere else.
                setCreated(null);
              }}
            >
              Done
            </button>
          </div>
        </section>
      )}

      <section className="section">
        <h2>Your tokens</h2>
        <ProblemAlert error={tokens.error} />
        {tokens.data === undefined ? (
          tokens.loading && <p className="muted">Loading tokens…</p>
        ) : (
          <div className="table-wrap">
            <table>
              <caption className="visually-hidden">Access tokens</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Last used</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.data.tokens.length === 0 && <EmptyRow columns={6}>No tokens yet.</EmptyRow>}
                {tokens.data.tokens.map((token) => (
                  <tr key={token.id}>
                    <th scope="row" className="cell-name">
                      {token.name}
                    </th>
                    <td>
                      <StatusBadge status={token.status} />
                    </td>
                    <td>
                      <Time iso={token.created_at} />
                    </td>
                    <td>
                      <Time iso={token.expires_at} />
                    </td>
                    <td>
                      {token.last_used_at === null ? 'Never' : <Time iso={token.last_used_at} withTime />}
                    </td>
                    <td className="cell-actions">
                      {token.status !== 'revoked' && (
                        <RowButton
                          action="Revoke"
                          target={token.name}
                          danger
                          onClick={() => {
                            setRevoking(token);
                          }}
                        />
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {revoking !== null && (
        <RevokeTokenDialog
          target={revoking}
          onCancel={() => {
            setRevoking(null);
          }}
          onRevoked={(revoked) => {
            setRevoking(null);
            tokens.update(({ tokens: list }) => ({
              tokens: list.map((token) => (token.id === revoked.id ? revoked : token)),
            }));
            showNotice(`${revoked.name} revoked`);
          }}
        />
      )}
    </>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (token: CreatedToken) => void }) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('30');
  const [error, setError] = useState<ApiError>();
  const [pending, setPending] = useState(false);

  function submit(event: SubmitEvent) {
    event.preventDefault();
    setPending(true);
    setError(undefined);
    api.post<CreatedToken>('/api/v1/tokens', { name, expires_in_days: Number(days) }).then(
      (token) => {
        setName('');
        setPending(false);
        onCreated(token);
      },
      (failure: unknown) => {
        setError(toApiError(failure));
        setPending(false);
      },
    );
  }

  return (
    <section className="section card">
      <h2>Create a token</h2>
      <ProblemAlert error={error} />
      <form onSubmit={submit} className="inline-form">
        <TextField
          label="Token name"
          value={name}
          onChange={setName}
          required
          placeholder="Claude Desktop"
          error={error?.fieldError('name')}
          className="grow"
        />
        <TextField
          label="Expires in (days)"
          type="number"
          min={1}
          max={MAX_DAYS}
          value={days}
          onChange={setDays}
          required
          error={error?.fieldError('expires_in_days')}
          className="field-narrow"
        />
        <button type="submit" className="button button-primary" disabled={pending}>
          Create token
        </button>
      </form>
    </section>
  );
}

interface RevokeTokenDialogProps {
  target: AccessToken;
  onCancel: () => void;
  onRevoked: (token: AccessToken) => void;
}

function RevokeTokenDialog({ target, onCancel, onRevoked }: RevokeTokenDialogProps) {
  const [error, setError] = useState<ApiError>();
  const [pending, setPending] = useState(false);

  function revoke() {
    setPending(true);
    setError(undefined);
    api
      .delete<AccessToken>(`/api/v1/tokens/${encodeURIComponent(target.id)}`)
      .then(onRevoked, (failure: unknown) => {
        setError(toApiError(failure));
        setPending(false);
      });
  }

  return (
    <Dialog title={`Revoke ${target.name}?`} onClose={onCancel}>
      <div className="stack">
        <ProblemAlert error={error} />
        <p>Any AI client or script using this token stops working at its next request.</p>
        <div className="dialog-actions">
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
          <button type="button" className="button button-danger" onClick={revoke} disabled={pending}>
            Revoke token
          </button>
        </div>
      </div>
    </Dialog>
  );
}
