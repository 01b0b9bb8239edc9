import { KEY_KINDS } from '../../src/core/key-kinds';

/**
 * Copy-ready calls of the read operation (docs/reading-brand-context.md "Reading brand context") and the MCP client block (docs/mcp.md
 * "MCP"), filled in with this service's address and a workspace's id. Keys and tokens stay out: the
 * snippets read them from the environment, or say where to create one.
 */

const { envVar } = KEY_KINDS.brand;
const PATH = '/functions/v1/brand-agent';

/** README's placeholder, when the service does not say where it is installed. */
export const INSTALL_PLACEHOLDER = '/path/to/brand-context';
/** What stands in the MCP block for the personal access token the user creates on the Access tokens page. */
export const ACCESS_TOKEN_PLACEHOLDER =
  'Create a personal access token (Access tokens page) and paste it here';

interface Target {
  /** Where the service answers, e.g. https://brand.example.com. */
  origin: string;
  workspaceId: string;
}

/**
 * A curl call of the read operation: the whole brand as JSON, or with `format`. `-w '\n'` ends its output
 * with a line break (the JSON body has none), so that calls run one after the other do not run together.
 */
export function curlSnippet({ origin, workspaceId }: Target, format?: 'markdown'): string {
  const body = JSON.stringify({ action: 'context', workspace_id: workspaceId, format });
  return [
    `curl -sS -w '\\n' -X POST ${origin}${PATH} \\`,
    `  -H "Authorization: Bearer $${envVar}" \\`,
    "  -H 'Content-Type: application/json' \\",
    `  -d '${body}'`,
  ].join('\n');
}

/** Both curl calls, each under a comment saying what it answers. */
export function curlSnippets(target: Target): string {
  return [
    '# The whole brand as JSON',
    curlSnippet(target),
    '',
    '# As Markdown, for a system prompt (fewer tokens)',
    curlSnippet(target, 'markdown'),
  ].join('\n');
}

export function nodeSnippet({ origin, workspaceId }: Target): string {
  return [
    '// Node 18 or later, in an ES module. The brand as Markdown, for a system prompt;',
    '// leave `format` out for the whole brand as JSON (then read it with response.json()).',
    `const response = await fetch(${JSON.stringify(origin + PATH)}, {`,
    "  method: 'POST',",
    '  headers: {',
    `    Authorization: \`Bearer \${process.env.${envVar}}\`,`,
    "    'Content-Type': 'application/json',",
    '  },',
    `  body: JSON.stringify({ action: 'context', workspace_id: '${workspaceId}', format: 'markdown' }),`,
    '});',
    'if (!response.ok) throw new Error(`brand-agent answered ${response.status}: ${await response.text()}`);',
    'const brand = await response.text();',
    'console.log(brand);',
  ].join('\n');
}

export function pythonSnippet({ origin, workspaceId }: Target): string {
  return [
    'import os',
    '',
    'import requests',
    '',
    '# The brand as Markdown, for a system prompt; leave "format" out for the whole brand',
    '# as JSON (then read it with response.json()).',
    'response = requests.post(',
    `    ${JSON.stringify(origin + PATH)},`,
    `    headers={"Authorization": f"Bearer {os.environ['${envVar}']}"},`,
    `    json={"action": "context", "workspace_id": ${JSON.stringify(workspaceId)}, "format": "markdown"},`,
    '    timeout=10,',
    ')',
    'response.raise_for_status()',
    'brand = response.text',
    'print(brand)',
  ].join('\n');
}

/**
 * The `mcpServers` block README shows for Claude Desktop and Cursor, in its `node` form: the installation's
 * own dist/cli/main.js, which needs no `npx` on the client's PATH. The Access tokens page passes the token it
 * has just created; elsewhere a placeholder says where to get one.
 */
export function mcpConfig(
  { origin, workspaceId }: Target,
  installDir: string | null,
  token: string = ACCESS_TOKEN_PLACEHOLDER,
): string {
  const dir = (installDir ?? INSTALL_PLACEHOLDER).replace(/\/+$/, '');
  const config = {
    mcpServers: {
      'brand-context': {
        command: 'node',
        args: [`${dir}/dist/cli/main.js`, 'mcp'],
        env: {
          BRAND_CONTEXT_URL: origin,
          BRAND_CONTEXT_ACCESS_TOKEN: token,
          ...(workspaceId !== '' && { BRAND_CONTEXT_WORKSPACE_ID: workspaceId }),
        },
      },
    },
  };
  return JSON.stringify(config, null, 2);
}
