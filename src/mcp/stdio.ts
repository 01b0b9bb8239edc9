import { serveStdio, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { KEY_KINDS } from '../core/key-kinds.js';
import type { McpConfig } from './config.js';
import { createBrandContextMcpServer, DEFAULT_WATCH_MS } from './server.js';
import { ServiceClient } from './service-client.js';

/** stdout carries only the protocol: everything for the operator goes to stderr, one line each. */
function logToStderr(line: string): void {
  process.stderr.write(`[brand-context mcp] ${line}\n`);
}

/**
 * Serves the MCP server over this process's stdin/stdout until the client closes stdin. The service is not
 * contacted at start: an MCP client launches its servers up front, and a service that is down is reported
 * by each tool call instead.
 */
export function startStdioServer(config: McpConfig): StdioServerHandle {
  const client = new ServiceClient(config);
  const intervalMs = config.watchMs ?? DEFAULT_WATCH_MS;
  // A 2025-era connection subscribes with resources/subscribe; a 2026-07-28 one listens, which the
  // connection serves itself: the server then watches while connected (src/mcp/server.ts).
  const factory = ({ era }: { era: 'legacy' | 'modern' }) =>
    createBrandContextMcpServer({
      client,
      config,
      log: logToStderr,
      watch: { intervalMs, while: era === 'modern' ? 'connected' : 'subscribed' },
    });
  const handle = serveStdio(factory, {
    onerror: (error) => {
      logToStderr(`protocol error: ${error.message}`);
    },
  });
  const credentials = [
    config.accessToken === undefined ? undefined : 'access token',
    config.brandReadKey === undefined ? undefined : 'brand read key',
  ].filter((part) => part !== undefined);
  logToStderr(
    `serving on stdio for ${config.serviceUrl} (${credentials.join(' and ')}; default workspace ${config.workspaceId ?? 'not set'})`,
  );
  if (config.brandReadKey === undefined && config.accessToken?.startsWith(KEY_KINDS.api.prefix) === true) {
    logToStderr(
      'warning: a workspace API key cannot read brand context; set BRAND_READ_KEY for get_brand_context and search_brand_knowledge',
    );
  }
  return handle;
}
