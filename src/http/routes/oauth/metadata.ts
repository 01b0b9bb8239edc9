import { OAuthMetadataSchema } from '@modelcontextprotocol/core';
import { OAUTH_SCOPES } from '../../../core/oauth.js';
import type { ZodApp } from '../../context.js';
import { CORS_HEADERS } from './schemas.js';
import { oauthIssuer } from './issuer.js';

/** Where clients find the authorization server's metadata (RFC 8414 §3), below the issuer's origin. */
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * GET /.well-known/oauth-authorization-server (RFC 8414): what MCP clients discover this server by, from the
 * protected resource metadata of `/mcp` (docs/oauth.md "Endpoints"). Shaped by the MCP SDK's own schema.
 */
export function authorizationServerMetadataRoute(app: ZodApp): void {
  app.get(
    AUTHORIZATION_SERVER_METADATA_PATH,
    {
      schema: {
        hide: true,
        operationId: 'getAuthorizationServerMetadata',
        summary: 'OAuth authorization server metadata (RFC 8414)',
        response: { 200: OAuthMetadataSchema },
      },
    },
    (_request, reply) => {
      const issuer = oauthIssuer(app.services);
      // Public, and fetched by browser-based MCP clients from their own origin.
      reply.headers(CORS_HEADERS);
      return {
        issuer,
        authorization_endpoint: `${issuer}/oauth/authorize`,
        token_endpoint: `${issuer}/oauth/token`,
        registration_endpoint: `${issuer}/oauth/register`,
        revocation_endpoint: `${issuer}/oauth/revoke`,
        scopes_supported: [...OAUTH_SCOPES],
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token'],
        token_endpoint_auth_methods_supported: ['none'],
        revocation_endpoint_auth_methods_supported: ['none'],
        code_challenge_methods_supported: ['S256'],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${issuer}/docs`,
      };
    },
  );
}
