import { type AuthInfo, createMcpHandler } from '@modelcontextprotocol/server';
import { KEY_KINDS } from '../core/key-kinds.js';
import type { Permission } from '../core/roles.js';
import { InProcessClient, type InProcessServices, type McpCaller } from './in-process-client.js';
import { createBrandContextMcpServer, MCP_PERMISSIONS, type McpPermission } from './server.js';

/** One request to /mcp, authenticated: who calls, and where its server's lines go (the request's log). */
export interface McpExchange {
  caller: McpCaller;
  log: (line: string) => void;
}

/** Serves one request: the SDK's web-standard answer to it, its JSON body given parsed. */
export type McpHttpServer = (
  request: Request,
  exchange: McpExchange,
  parsedBody: unknown,
) => Promise<Response>;

/** What the caller's credential lets it use (docs/mcp.md "Remote MCP"). */
function permissionsOf({ principal, grant }: McpCaller): Set<McpPermission> {
  const held: readonly Permission[] =
    grant !== undefined
      ? grant.permissions
      : principal.kind === 'key'
        ? KEY_KINDS[principal.keyKind].permissions
        : MCP_PERMISSIONS;
  return new Set(MCP_PERMISSIONS.filter((permission) => held.includes(permission)));
}

/** A key's or a grant's one workspace is the default; a user's is their only one (src/mcp/server.ts). */
function defaultWorkspaceOf({ principal, grant }: McpCaller): string | undefined {
  if (grant !== undefined) return grant.workspaceId;
  return principal.kind === 'key' ? principal.workspaceId : undefined;
}

/**
 * The MCP server of `brand-context mcp` over MCP Streamable HTTP, as the service serves it at /mcp
 * (src/http/routes/mcp.ts): the official SDK's handler, stateless (`legacy: 'stateless'` for 2025-era
 * clients), building for each request a server of its own, with the tools, resources and prompt its caller
 * may use, whose client is the service itself (src/mcp/in-process-client.ts).
 */
export function createMcpHttpServer(
  services: InProcessServices,
  onerror: (error: Error) => void,
): McpHttpServer {
  /** Each request's exchange, found by the AuthInfo the SDK hands the server factory as it was given. */
  const exchanges = new WeakMap<AuthInfo, McpExchange>();
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const exchange = authInfo && exchanges.get(authInfo);
      if (exchange === undefined) throw new Error('/mcp served a request it did not authenticate');
      const { caller, log } = exchange;
      return createBrandContextMcpServer({
        client: new InProcessClient(services, caller),
        config: { workspaceId: defaultWorkspaceOf(caller) },
        permissions: permissionsOf(caller),
        transport: 'http',
        log,
      });
    },
    { legacy: 'stateless', onerror },
  );
  return (request, exchange, parsedBody) => {
    const { principal } = exchange.caller;
    // It only carries the exchange to the server factory: the credential itself stays out of the SDK.
    const authInfo: AuthInfo = {
      token: '',
      clientId: principal.kind === 'key' ? principal.id : principal.user.id,
      scopes: [...permissionsOf(exchange.caller)],
    };
    exchanges.set(authInfo, exchange);
    return handler.fetch(request, { authInfo, parsedBody });
  };
}
