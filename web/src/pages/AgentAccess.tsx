import { Link } from 'react-router';
import { KEY_KINDS, type KeyKindId } from '../../../src/core/key-kinds';
import { curlSnippet, curlSnippets, mcpConfig, nodeSnippet, pythonSnippet } from '../agentSnippets';
import { CodeBlock } from '../components/CodeBlock';
import { ConnectedApps } from '../components/ConnectedApps';
import { CopyButton } from '../components/CopyButton';
import { KeySection, type KeySectionWords } from '../components/KeySection';
import { PageHeader } from '../components/PageHeader';
import { StatusMessage } from '../components/StatusMessage';
import { Tabs } from '../components/Tabs';
import { canManage, useWorkspace } from '../components/WorkspaceGate';
import { COPY_NOTICE, useNotice } from '../notice';
import { useSignedIn } from '../session';

/** The kinds a workspace manages itself; the operator's (transactional email keys) are on the Email page. */
type WorkspaceKeyKindId = {
  [Id in KeyKindId]: (typeof KEY_KINDS)[Id]['managedBy'] extends 'workspace' ? Id : never;
}[KeyKindId];

/** What this page says of each kind of key beyond its row of KEY_KINDS. */
const WORDS = {
  brand: {
    description:
      'For AI system prompts, pipelines and server-side scripts: each key reads this workspace’s brand context and nothing else, and expires 90 days after it is created.',
    createButton: 'Create key',
  },
  api: {
    description:
      'For integrations that read and write this workspace’s campaign drafts through the campaign API. They expire after 90 days too.',
    createButton: 'Create API key',
  },
} satisfies Record<WorkspaceKeyKindId, Required<KeySectionWords>>;

const { envVar } = KEY_KINDS.brand;

interface SnippetsProps {
  workspaceId: string;
  onNotice: (message: string) => void;
}

/** How to read the brand from code and connect an AI client, each a snippet to copy. */
function Snippets({ workspaceId, onNotice }: SnippetsProps) {
  const { installDir } = useSignedIn();
  // The console is served by the service itself: its origin is the service's address.
  const target = { origin: window.location.origin, workspaceId };
  const tokensPage = `/account/tokens?workspace=${encodeURIComponent(workspaceId)}`;
  const snippets = [
    {
      id: 'curl',
      title: 'curl',
      copy: 'Copy curl commands',
      note: (
        <>
          With a brand read key in <code>{envVar}</code>.
        </>
      ),
      text: curlSnippets(target),
    },
    {
      id: 'node',
      title: 'Node fetch',
      copy: 'Copy Node snippet',
      note: (
        <>
          With a brand read key in <code>{envVar}</code>.
        </>
      ),
      text: nodeSnippet(target),
    },
    {
      id: 'python',
      title: 'Python requests',
      copy: 'Copy Python snippet',
      note: (
        <>
          With a brand read key in <code>{envVar}</code> (<code>pip install requests</code>).
        </>
      ),
      text: pythonSnippet(target),
    },
    {
      id: 'mcp',
      title: 'MCP client',
      copy: 'Copy MCP configuration',
      note: (
        <>
          For Claude Desktop’s <code>claude_desktop_config.json</code> or Cursor’s{' '}
          <code>~/.cursor/mcp.json</code>. The MCP server acts as you, with a personal access token rather
          than a key: <Link to={tokensPage}>create one under Access tokens</Link> and paste it in. The path is
          where Brand Context is installed on the machine that runs this service
          {installDir === null ? ' (replace it)' : ''}; if your AI client runs on another computer, install
          Brand Context there and put that path instead.
        </>
      ),
      text: mcpConfig(target, installDir),
    },
  ];
  return (
    <section className="section">
      <h2>Read the brand from code</h2>
      <p className="section-description">
        Ready to paste, with this service’s address and this workspace’s ID filled in. Markdown is the compact
        form for system prompts.
      </p>
      <Tabs
        label="Snippets"
        tabs={snippets.map(({ id, title, copy, note, text }) => ({
          id,
          label: title,
          panel: (
            <>
              <p className="tab-panel-note">{note}</p>
              <CodeBlock label={`${title} snippet`}>{text}</CodeBlock>
              <div className="button-row">
                <CopyButton text={text} label={copy} onNotice={onNotice} />
              </div>
            </>
          ),
        }))}
      />
    </section>
  );
}

/**
 * Settings → Agent Access (docs/keys.md "Brand read keys"): the workspace id, the apps connected with OAuth, keys,
 * and how to rotate one.
 */
export function AgentAccess() {
  const workspace = useWorkspace();
  const [notice, showNotice] = useNotice(COPY_NOTICE);

  return (
    <>
      <PageHeader title="Agent Access" eyebrow="Settings">
        <p className="lead">
          Let AI clients, pipelines and scripts read this workspace’s brand. Keys are shown once, expire after
          90 days and can be revoked at any time.
        </p>
      </PageHeader>
      <StatusMessage message={notice} />
      {!canManage(workspace) && <p className="callout">Only owners and admins can create and revoke keys.</p>}

      <section className="section">
        <h2>Workspace ID</h2>
        <p className="section-description">
          Send it as <code>workspace_id</code> in every read request.
        </p>
        <div className="copy-row">
          <code data-testid="workspace-id" className="copy-value">
            {workspace.id}
          </code>
          <CopyButton text={workspace.id} label="Copy workspace ID" onNotice={showNotice} />
        </div>
      </section>

      <ConnectedApps workspace={workspace} onNotice={showNotice} />

      <KeySection kind={KEY_KINDS.brand} words={WORDS.brand} workspace={workspace} onNotice={showNotice} />

      <Snippets workspaceId={workspace.id} onNotice={showNotice} />

      <section className="section">
        <h2>Rotating a key</h2>
        <p className="section-description">
          Before a key’s 90 days run out, or as soon as it may have leaked, replace it in this order so that
          nothing stops working:
        </p>
        <ol className="steps">
          <li>Create a replacement key here in Settings → Agent Access.</li>
          <li>
            Update the environment variable that holds the key (e.g. {envVar}) in every environment that uses
            it.
          </li>
          <li>
            Verify the new key with a test request; it answers 200 with the brand:
            <pre className="code-block">
              {curlSnippet({ origin: window.location.origin, workspaceId: workspace.id })}
            </pre>
          </li>
          <li>Revoke the old key.</li>
        </ol>
      </section>

      <KeySection kind={KEY_KINDS.api} words={WORDS.api} workspace={workspace} onNotice={showNotice} />
    </>
  );
}
