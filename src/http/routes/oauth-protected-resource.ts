import { MCP_PATH, mcpResource, OAUTH_SCOPES } from '../../core/oauth.js';
import type { ZodApp } from '../context.js';

/** Where an MCP client that was refused at /mcp finds how to get a token (RFC 9728 §3.1: after the well-known name, the resource's path). */
export const PROTECTED_RESOURCE_PATH = `/.well-known/oauth-protected-resource${MCP_PATH}`;

/**
 * `GET /.well-known/oauth-protected-resource/mcp`: the protected-resource metadata of /mcp (RFC 9728,
 * docs/mcp.md "Remote MCP"): the resource, the authorization server that issues its tokens (this service,
 * at PUBLIC_URL), its scopes, and that tokens go in the Authorization header only.
 */
export function oauthProtectedResourceRoute(app: ZodApp): void {
  const { accountMail } = app.services;
  app.get(PROTECTED_RESOURCE_PATH, { schema: { hide: true } }, (_request, reply) => {
    const issuer = accountMail.publicUrl();
    // Public, and fetched by browser-based MCP clients from their own origin.
    return reply.header('access-control-allow-origin', '*').send({
      resource: mcpResource(issuer),
      authorization_servers: [issuer],
      scopes_supported: OAUTH_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: 'Brand Context',
    });
  });
}
