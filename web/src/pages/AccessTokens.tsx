import { type SubmitEvent, useState } from 'react';
import { useSearchParams } from 'react-router';
import { INSTALL_PLACEHOLDER, mcpConfig } from '../agentSnippets';
import { api, url } from '../api';
import { CodeBlock } from '../components/CodeBlock';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { CopyButton } from '../components/CopyButton';
import { DataTable } from '../components/DataTable';
import { TextField } from '../components/fields';
import { PageHeader } from '../components/PageHeader';
import { ProblemAlert } from '../components/ProblemAlert';
import { RowButton } from '../components/RowButton';
import { SecretField } from '../components/SecretField';
import { StatusBadge } from '../components/StatusBadge';
import { StatusMessage } from '../components/StatusMessage';
import { Time } from '../components/Time';
import { COPY_NOTICE, useNotice } from '../notice';
import { useSignedIn } from '../session';
import type { AccessToken, CreatedAccessToken } from '../../../src/contract/access-tokens';
import { useResource } from '../useResource';
import { useSubmit } from '../useSubmit';

const MAX_DAYS = 90;

/** Personal access tokens: what AI clients (the MCP server) and scripts use to act as you. */
export function AccessTokens() {
  const { workspaces, installDir } = useSignedIn();
  const [searchParams] = useSearchParams();
  const workspaceId = searchParams.get('workspace') ?? workspaces[0]?.id ?? '';
  const tokens = useResource(url('/api/v1/tokens'));
  const [created, setCreated] = useState<CreatedAccessToken | null>(null);
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
          <SecretField label="Access token" value={created.token} />
          <p className="callout callout-warning">
            You will not see this token again. Keep it in your AI client’s configuration or a secret store
            only.
          </p>
          <div className="button-row">
            <CopyButton text={created.token} label="Copy token" onNotice={showNotice} />
          </div>
          <h3>Connect an AI client</h3>
          <p>
            Paste this into Claude Desktop’s <code>claude_desktop_config.json</code> or Cursor’s{' '}
            <code>~/.cursor/mcp.json</code>.{' '}
            {installDir === null ? (
              <>
                Replace <code>{INSTALL_PLACEHOLDER}</code> with where Brand Context is installed and built.
              </>
            ) : (
              <>
                <code>{installDir}</code> is where Brand Context is installed on the machine that runs the
                service. If your AI client runs on another computer, install Brand Context there too and put
                that path instead.
              </>
            )}
          </p>
          <CodeBlock label="MCP client configuration">
            {mcpConfig({ origin: window.location.origin, workspaceId }, installDir, created.token)}
          </CodeBlock>
          <div className="button-row">
            <CopyButton
              text={mcpConfig({ origin: window.location.origin, workspaceId }, installDir, created.token)}
              label="Copy configuration"
              onNotice={showNotice}
            />
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
          <DataTable
            name="Access tokens"
            columns={[
              { header: 'Name', rowHeader: true, cell: (token) => token.name },
              { header: 'Status', cell: (token) => <StatusBadge status={token.status} /> },
              { header: 'Created', cell: (token) => <Time iso={token.created_at} /> },
              { header: 'Expires', cell: (token) => <Time iso={token.expires_at} /> },
              {
                header: 'Last used',
                cell: (token) =>
                  token.last_used_at === null ? 'Never' : <Time iso={token.last_used_at} withTime />,
              },
            ]}
            rows={tokens.data.tokens}
            rowKey={(token) => token.id}
            actions={(token) =>
              token.status !== 'revoked' && (
                <RowButton
                  action="Revoke"
                  target={token.name}
                  danger
                  onClick={() => {
                    setRevoking(token);
                  }}
                />
              )
            }
            emptyText="No tokens yet."
          />
        )}
      </section>
      {revoking !== null && (
        <ConfirmDialog
          title={`Revoke ${revoking.name}?`}
          explanation="Any AI client or script using this token stops working at its next request."
          confirmLabel="Revoke token"
          danger
          action={() => api.delete(url('/api/v1/tokens/{token_id}', { token_id: revoking.id }))}
          onCancel={() => {
            setRevoking(null);
          }}
          onDone={(revoked) => {
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

function CreateTokenForm({ onCreated }: { onCreated: (token: CreatedAccessToken) => void }) {
  const [name, setName] = useState('');
  const [days, setDays] = useState('30');
  const { pending, error, run } = useSubmit();

  function submit(event: SubmitEvent) {
    event.preventDefault();
    run(
      () => api.post(url('/api/v1/tokens'), { name, expires_in_days: Number(days) }),
      (token) => {
        setName('');
        onCreated(token);
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
