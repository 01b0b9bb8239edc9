import { describe, expect, it } from 'vitest';
import {
  ACCESS_TOKEN_PLACEHOLDER,
  curlSnippets,
  INSTALL_PLACEHOLDER,
  mcpConfig,
  nodeSnippet,
  pythonSnippet,
} from './agentSnippets';

const TARGET = { origin: 'https://brand.example.com', workspaceId: 'ws_8fK2' };

describe('agent snippets', () => {
  it('calls the read operation at the service’s address with the workspace id, the key from BRAND_READ_KEY', () => {
    for (const snippet of [curlSnippets(TARGET), nodeSnippet(TARGET), pythonSnippet(TARGET)]) {
      expect(snippet).toContain('https://brand.example.com/functions/v1/brand-agent');
      expect(snippet).toContain('ws_8fK2');
      expect(snippet).toContain('BRAND_READ_KEY');
    }
  });

  it('asks for the whole brand as JSON, then as Markdown', () => {
    const bodies = [...curlSnippets(TARGET).matchAll(/-d '(.*)'/g)].map(
      (match) => JSON.parse(match[1] ?? '') as unknown,
    );
    expect(bodies).toEqual([
      { action: 'context', workspace_id: 'ws_8fK2' },
      { action: 'context', workspace_id: 'ws_8fK2', format: 'markdown' },
    ]);
    expect(nodeSnippet(TARGET)).toContain("format: 'markdown'");
    expect(pythonSnippet(TARGET)).toContain('"format": "markdown"');
  });

  it('ends each curl call’s output with a line break, so that the JSON and the Markdown run on separate lines', () => {
    const calls = curlSnippets(TARGET)
      .split('\n')
      .filter((line) => line.startsWith('curl '));
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toContain(`-w '\\n'`);
  });

  it('prints the brand from the Node and Python snippets, so that running them as copied shows it', () => {
    expect(nodeSnippet(TARGET).split('\n').at(-1)).toBe('console.log(brand);');
    expect(pythonSnippet(TARGET).split('\n').at(-1)).toBe('print(brand)');
  });

  it('configures the MCP server with this installation’s dist/cli/main.js and a token placeholder', () => {
    const config = JSON.parse(mcpConfig(TARGET, '/srv/brand-context/')) as {
      mcpServers: Record<string, { command: string; args: string[]; env: Record<string, string> }>;
    };
    expect(config.mcpServers['brand-context']).toEqual({
      command: 'node',
      args: ['/srv/brand-context/dist/cli/main.js', 'mcp'],
      env: {
        BRAND_CONTEXT_URL: 'https://brand.example.com',
        BRAND_CONTEXT_ACCESS_TOKEN: ACCESS_TOKEN_PLACEHOLDER,
        BRAND_CONTEXT_WORKSPACE_ID: 'ws_8fK2',
      },
    });
  });

  it('falls back on README’s placeholder path when the service does not say where it is installed', () => {
    expect(mcpConfig(TARGET, null)).toContain(`${INSTALL_PLACEHOLDER}/dist/cli/main.js`);
  });
});
