import { OAuthClientInformationFullSchema } from '@modelcontextprotocol/core';
import { z } from 'zod';
import { registerClient } from '../../../services/oauth/clients.js';
import type { ZodApp } from '../../context.js';
import { NO_STORE } from './schemas.js';

/**
 * POST /oauth/register: Dynamic Client Registration (RFC 7591) of a public client, open to anyone as MCP
 * clients expect (docs/oauth.md "Clients"). Errors are RFC 7591 §3.2.2 JSON.
 */
export function registerClientRoute(app: ZodApp): void {
  app.post(
    '/register',
    {
      schema: {
        hide: true,
        operationId: 'registerOAuthClient',
        summary: 'Register an OAuth client (RFC 7591)',
        description:
          'Public clients only: token_endpoint_auth_method "none", redirect URIs https or http on a loopback host. Clients may instead use a Client ID Metadata Document URL as their client_id.',
        body: z.record(z.string(), z.unknown()).describe('Client metadata (RFC 7591 §2)'),
        response: { 201: OAuthClientInformationFullSchema },
      },
    },
    async (request, reply) => {
      const client = await registerClient(app.services.deps, request.body);
      return reply.code(201).headers(NO_STORE).send(client);
    },
  );
}
