import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CAMPAIGN_BODY_LIMIT } from '../../contract/campaigns.js';
import { AppError } from '../../core/errors.js';
import { KEY_KINDS } from '../../core/key-kinds.js';
import { OAUTH_SECRET_PREFIXES } from '../../core/secret-keys.js';
import { MCP_PATH, type OAuthScope, SCOPE_PERMISSIONS } from '../../core/oauth.js';
import { bearerToken, type Principal } from '../../services/auth/credentials.js';
import type { McpHttpServer } from '../../mcp/http.js';
import type { McpCaller } from '../../mcp/in-process-client.js';
import type { ZodApp } from '../context.js';
import { PROBLEM_CONTENT_TYPE, problemOf, toProblemBody } from '../problem.js';
import { PROTECTED_RESOURCE_PATH } from './oauth-protected-resource.js';

/** What a page of an allowed origin may send (MCP Streamable HTTP's headers), and read of the answer. */
const CORS_ALLOWED_HEADERS =
  'authorization, content-type, accept, mcp-protocol-version, mcp-session-id, last-event-id';
const CORS_EXPOSED_HEADERS = 'mcp-session-id, mcp-protocol-version, www-authenticate';

/** Names of this machine, which a DNS rebinding attack cannot send as the host (it sends its own domain's). */
const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** What an OAuth access token stands for: a grant of a user's, for one workspace and some scopes. */
export interface AccessTokenGrant {
  userId: string;
  workspaceId: string;
  scopes: readonly OAuthScope[];
  clientId: string;
  /** When the token stops being accepted (epoch ms). */
  expiresAt: number;
}

/** Verifies OAuth access tokens (src/services/oauth/tokens.ts); throws 401 `invalid_token` for a bad one. */
export interface AccessTokenVerifier {
  verify(token: string): Promise<AccessTokenGrant>;
}

export interface McpRouteOptions {
  /** MCP_ALLOWED_ORIGINS: web origins besides PUBLIC_URL's whose pages may call /mcp. */
  allowedOrigins: readonly string[];
  /** What verifies OAuth access tokens: the OAuth server's (tests may stand in for it). */
  accessTokens: AccessTokenVerifier;
}

/** The request as a web-standard Request, for the SDK's handler; its JSON body is handed over parsed. */
function webRequest(request: FastifyRequest, origin: string): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const each of value) headers.append(name, each);
  }
  return new Request(`${origin}${request.url}`, { method: request.method, headers });
}

/**
 * `POST|GET|DELETE /mcp`: the MCP server of `brand-context mcp` over MCP Streamable HTTP (docs/mcp.md
 * "Remote MCP"), served by the official SDK's handler, statelessly: every request gets a server of its own,
 * so any node answers any request. In order: the Host and Origin (DNS rebinding), the credential (401 with the
 * pointer to the protected-resource metadata), then the SDK. Tools call the service in process
 * (src/mcp/in-process-client.ts) as the caller, who is shown only the tools its credential may use.
 */
export function mcpRoute(app: ZodApp, options: McpRouteOptions): void {
  const { credentials, reader, readLimits, deps, accountMail } = app.services;
  /**
   * The SDK and the MCP server, loaded on the first request to /mcp: `serve` answers its first read without
   * parsing them (its cold start, docs/performance.md "Scale, measured").
   */
  let server: Promise<McpHttpServer> | undefined;
  const mcpServer = () =>
    (server ??= import('../../mcp/http.js').then(({ createMcpHttpServer }) =>
      createMcpHttpServer({ deps, credentials, reader, readLimits }, (error) => {
        app.log.debug({ err: error }, 'MCP request refused');
      }),
    ));
  const callers = new WeakMap<FastifyRequest, McpCaller>();

  /**
   * DNS rebinding protection: the request must name this service as its host (PUBLIC_URL's, or a loopback
   * name), and a page may call it only from the service's own origin or from MCP_ALLOWED_ORIGINS. A page of
   * an allowed origin may read the answer (CORS), its challenge and session headers included.
   */
  function refuseRebinding(request: FastifyRequest, reply: FastifyReply): void {
    const publicUrl = new URL(accountMail.publicUrl());
    // `request.host` is X-Forwarded-Host's under TRUST_PROXY; a Host that is no host name matches nothing.
    const host = request.host;
    const hostname = URL.canParse(`http://${host}`) ? new URL(`http://${host}`).hostname : '';
    if (hostname !== publicUrl.hostname && !LOOPBACK_HOSTNAMES.includes(hostname))
      throw new AppError('host_forbidden', { host: host.slice(0, 100) });
    const { origin } = request.headers;
    if (origin === undefined) return;
    if (origin !== publicUrl.origin && !options.allowedOrigins.includes(origin))
      throw new AppError('origin_forbidden', { origin: origin.slice(0, 100) });
    reply
      .header('access-control-allow-origin', origin)
      .header('access-control-expose-headers', CORS_EXPOSED_HEADERS)
      .header('vary', 'origin');
  }

  async function callerOf(authorization: string | undefined): Promise<McpCaller> {
    const token = authorization === undefined ? undefined : bearerToken(authorization);
    // An OAuth access token is the OAuth server's to verify (src/services/oauth/tokens.ts).
    if (token?.startsWith(OAUTH_SECRET_PREFIXES.access) === true) {
      const grant = await options.accessTokens.verify(token);
      const user = await deps.store.users.get(grant.userId);
      if (!user) throw new AppError('invalid_token', { reason: 'no_account' });
      // The grant acts as its user, whose membership and role are checked on every call as a user's are;
      // the grant's own bounds (workspace, scopes) are checked beside them (src/mcp/in-process-client.ts).
      const principal: Principal = { kind: 'provider_token', user, expiresAt: grant.expiresAt };
      return {
        principal,
        grant: {
          workspaceId: grant.workspaceId,
          permissions: grant.scopes.flatMap((scope) => SCOPE_PERMISSIONS[scope]),
        },
      };
    }
    // A brand read key is taken where the read operation takes it; every other credential as the API takes it.
    const surface = token?.startsWith(KEY_KINDS.brand.prefix) === true ? 'read' : 'management';
    return { principal: await credentials.resolve({ authorization }, surface) };
  }

  /**
   * A 401 points at the protected-resource metadata (RFC 9728 §5.1), where an MCP client starts OAuth; its
   * body is the problem the app answers any refused credential with.
   */
  function challenge(request: FastifyRequest, reply: FastifyReply, problem: AppError): FastifyReply {
    const metadata = `${accountMail.publicUrl()}${PROTECTED_RESOURCE_PATH}`;
    const sent = (request.headers.authorization ?? '') !== '';
    return reply
      .code(401)
      .header(
        'www-authenticate',
        `Bearer resource_metadata="${metadata}"${sent ? ', error="invalid_token"' : ''}`,
      )
      .type(PROBLEM_CONTENT_TYPE)
      .send(toProblemBody(problem, request.id));
  }

  // A browser asks before it sends Authorization from a page of another origin: only an allowed one is told yes.
  app.options(MCP_PATH, { schema: { hide: true } }, (request, reply) => {
    refuseRebinding(request, reply);
    return reply
      .code(204)
      .header('access-control-allow-methods', 'POST, GET, DELETE')
      .header('access-control-allow-headers', CORS_ALLOWED_HEADERS)
      .header('access-control-max-age', '3600')
      .send();
  });

  app.route({
    method: ['GET', 'POST', 'DELETE'],
    url: MCP_PATH,
    exposeHeadRoute: false,
    bodyLimit: CAMPAIGN_BODY_LIMIT,
    // JSON-RPC over HTTP: docs/mcp.md describes it, the API reference does not.
    schema: { hide: true },
    onRequest: async (request, reply) => {
      refuseRebinding(request, reply);
      try {
        callers.set(request, await callerOf(request.headers.authorization));
      } catch (error) {
        const problem = problemOf(error);
        if (problem.status !== 401) throw error;
        return challenge(request, reply, problem);
      }
      return undefined;
    },
    handler: async (request, reply) => {
      const caller = callers.get(request);
      if (caller === undefined) throw new Error(`${MCP_PATH} reached its handler without authentication`);
      const log = (line: string) => {
        request.log.info(line);
      };
      const serve = await mcpServer();
      const response = await serve(
        webRequest(request, accountMail.publicUrl()),
        { caller, log },
        request.body,
      );
      reply.code(response.status);
      response.headers.forEach((value, name) => {
        reply.header(name, value);
      });
      // The SDK's 405 (GET and DELETE: no stream, no session to end) names no method; RFC 9110 §15.5.6 asks for it.
      if (response.status === 405 && !response.headers.has('allow')) reply.header('allow', 'POST');
      if (response.body === null) return reply.send();
      // An event stream is sent as it is written (progress, then the result); anything else whole.
      if (response.headers.get('content-type')?.startsWith('text/event-stream') === true)
        return reply.send(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>));
      return reply.send(Buffer.from(await response.arrayBuffer()));
    },
  });
}
