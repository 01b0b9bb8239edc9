import type { Command } from 'commander';
import { loadMcpConfig } from '../../mcp/config.js';

const ENVIRONMENT = `
Environment:
  BRAND_CONTEXT_URL            the service's base URL (default http://127.0.0.1:8787)
  BRAND_CONTEXT_ACCESS_TOKEN   a personal access token (POST /api/v1/tokens) or a workspace API key (wsk_…)
  BRAND_READ_KEY               optional brand read key (brk_…), used for brand reads when set
  BRAND_CONTEXT_WORKSPACE_ID   optional default workspace (required without a user access token)
  BRAND_CONTEXT_TIMEOUT_MS     optional timeout of each call to the service (default 15000)`;

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('run the MCP server for AI clients over stdio (a client of the running service)')
    .addHelpText('after', ENVIRONMENT)
    .action(async () => {
      // Bad configuration throws here, before any protocol traffic: one line on stderr, exit code 1.
      const config = loadMcpConfig();
      // The MCP SDK is loaded by this command only, so that the others start without it.
      const { startStdioServer } = await import('../../mcp/stdio.js');
      startStdioServer(config);
    });
}
