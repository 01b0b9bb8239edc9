import { randomUUID } from 'node:crypto';
import { type IncomingMessage, METHODS } from 'node:http';
import fastifyCookie from '@fastify/cookie';
import fastifyCsrf from '@fastify/csrf-protection';
import fastifySwagger from '@fastify/swagger';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type HookHandlerDoneFunction,
  LogController,
} from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { levels } from 'pino';
import { type Clock, systemClock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { refuseNulCharacters } from '../core/inputs.js';
import { BrandReader } from '../services/brand-reader.js';
import { Credentials } from '../services/credentials.js';
import type { PasswordHasher } from '../services/passwords.js';
import { DEFAULT_SIGN_IN_LIMITS, SignInService, type SignInLimits } from '../services/sign-in.js';
import { type AuthConfig, TokenService } from '../services/tokens.js';
import { UsageRecorder } from '../services/usage.js';
import type { Store } from '../store/store.js';
import {
  authenticate,
  authorizeWorkspace,
  COOKIE_OPTIONS,
  CSRF_COOKIE,
  requireCsrfForCookieWrites,
} from './auth.js';
import { consoleRoutes } from './console.js';
import type { AppContext, ZodApp } from './context.js';
import { docsRoutes, OPENAPI_OPTIONS } from './openapi.js';
import { handleError } from './problem.js';
import { parseJsonBodies, validatorCompiler } from './request-input.js';
import { auditLogRoute } from './routes/api/audit-log.js';
import { getBrandRoute } from './routes/api/brand/get.js';
import { putBrandRoute } from './routes/api/brand/put.js';
import { createCampaignRoute } from './routes/api/campaigns/create.js';
import { getCampaignRoute } from './routes/api/campaigns/get.js';
import { listCampaignsRoute } from './routes/api/campaigns/list.js';
import { scheduleCampaignRoute } from './routes/api/campaigns/schedule.js';
import { updateCampaignRoute } from './routes/api/campaigns/update.js';
import { createKeyRoute } from './routes/api/keys/create.js';
import { KEY_ROUTES } from './routes/api/keys/kinds.js';
import { listKeysRoute } from './routes/api/keys/list.js';
import { revokeKeyRoute } from './routes/api/keys/revoke.js';
import { addMemberRoute } from './routes/api/members/add.js';
import { listMembersRoute } from './routes/api/members/list.js';
import { removeMemberRoute } from './routes/api/members/remove.js';
import { createTokenRoute } from './routes/api/tokens/create.js';
import { listTokensRoute } from './routes/api/tokens/list.js';
import { revokeTokenRoute } from './routes/api/tokens/revoke.js';
import { createWorkspaceRoute } from './routes/api/workspaces/create.js';
import { listWorkspacesRoute } from './routes/api/workspaces/list.js';
import { sessionRoutes } from './routes/auth/session.js';
import { signInRoute } from './routes/auth/token.js';
import { brandAgentRoutes } from './routes/brand-agent.js';
import { healthRoutes } from './routes/health.js';
import { createHttpTransport, DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './transport.js';

export interface AppOptions {
  store: Store;
  logger: FastifyBaseLogger;
  clock?: Clock;
  auth?: Partial<AuthConfig>;
  /** Sign-in throttles; the defaults for any left out. */
  signInLimits?: Partial<SignInLimits>;
  /** Bounds the scrypt work of sign-in; the process's shared one by default. */
  passwordHasher?: PasswordHasher;
  /** How often `last_used_at` stamps are written (default 30 s). */
  usageFlushMs?: number;
  /** Behind a load balancer: whose X-Forwarded-For names the client (sign-in throttles per client IP). */
  trustProxy?: boolean | string[];
  /** The built console (dist/web) to serve at `/`; no console without it. */
  consoleDir?: string;
  /**
   * Where this installation is (the directory holding dist/cli/main.js): the console shows it to signed-in
   * users in their MCP client configuration (GET /auth/v1/session `install_dir`).
   */
  installDir?: string;
  /** Header, body, keep-alive and shutdown timeouts (src/http/transport.ts); production defaults otherwise. */
  httpTimeouts?: Partial<HttpTimeouts>;
}

/**
 * One line per request, after the response: method, redacted URL, status and time; never headers. Every
 * failure is logged at info or above, so the `request_id` of any problem body can be looked up. A line per
 * successful read costs a quarter of the read operation's throughput (measured with `npm run bench`), so
 * successes are logged at debug: `LOG_LEVEL=debug` turns on a full access log.
 */
class AccessLog extends LogController {
  override incomingRequest(): void {
    // The completion line carries everything; a second line per request would only double the cost.
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const status = reply.statusCode;
    const level = error || status >= 500 ? 'error' : status >= 400 ? 'info' : 'debug';
    // Successful reads are the hot path: build no line (URL redaction included) that would be dropped.
    // ('silent' has no number: nothing is logged.)
    if ((levels.values[level] ?? 0) < (levels.values[request.log.level] ?? Number.POSITIVE_INFINITY)) return;
    // The logger masks anything key-shaped in every line it writes (src/logger.ts), the URL included.
    const line = {
      method: request.method,
      url: request.url,
      status,
      ms: Math.round(reply.elapsedTime * 100) / 100,
    };
    request.log[level](error ? { ...line, err: error } : line, error ? 'request failed' : 'request');
  }
}

/**
 * A caller's `X-Request-Id` is kept only in the shapes load balancers and proxies generate (a UUID; nginx's and
 * others' 16-64 hex digits), which no secret of this service has and which cannot forge a log line; anything
 * else is replaced by a fresh UUID.
 */
const REQUEST_ID =
  /^(?:[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}|[0-9A-Fa-f]{16,64})$/;

function requestId(request: IncomingMessage): string {
  const incoming = request.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
}

/**
 * The path and query name what authorization looks up, so a NUL there (which PostgreSQL text cannot hold) is
 * refused before it; bodies are checked after authorization, when they are validated (src/http/request-input.ts).
 */
function refuseNulInPathAndQuery(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: HookHandlerDoneFunction,
): void {
  try {
    for (const input of [request.params, request.query]) refuseNulCharacters(input, '', 'Invalid request');
    done();
  } catch (error) {
    done(error as AppError);
  }
}

const WORKSPACE_ROUTES = [
  getBrandRoute,
  putBrandRoute,
  ...KEY_ROUTES.flatMap((keys) => [createKeyRoute(keys), listKeysRoute(keys), revokeKeyRoute(keys)]),
  listMembersRoute,
  addMemberRoute,
  removeMemberRoute,
  auditLogRoute,
  listCampaignsRoute,
  getCampaignRoute,
  createCampaignRoute,
  updateCampaignRoute,
  scheduleCampaignRoute,
];
const ACCOUNT_ROUTES = [
  listWorkspacesRoute,
  createWorkspaceRoute,
  createTokenRoute,
  listTokensRoute,
  revokeTokenRoute,
];

export function buildApp(options: AppOptions): FastifyInstance {
  const { store, logger, clock = systemClock } = options;
  const transport = createHttpTransport(logger, { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts });
  const app = Fastify({
    ...transport.serverOptions,
    loggerInstance: logger,
    logController: new AccessLog({ requestIdLogLabel: 'request_id' }),
    genReqId: requestId,
    forceCloseConnections: 'idle',
    trustProxy: options.trustProxy ?? false,
  }).withTypeProvider<ZodTypeProvider>();
  // Every method Node parses is routable (CONNECT is Node's own), so the read operation answers each with 405.
  for (const method of METHODS)
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Only JSON bodies are understood; text/plain would otherwise be parsed into a string.
  app.removeContentTypeParser('text/plain');
  parseJsonBodies(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => {
    // The path, not the query, and not a long one in full; problem details are masked for keys anyway.
    const path = request.url.split('?')[0] ?? '';
    const shown = path.length > 100 ? `${path.slice(0, 100)}…` : path;
    return handleError(new AppError('not_found', `No route ${request.method} ${shown}.`), request, reply);
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('viaSessionCookie', false);
  app.decorateRequest('membership', null);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const deps = { store, clock };
  const usage = new UsageRecorder(
    store,
    (error: unknown) => {
      logger.error({ err: error }, 'could not record last use of keys and tokens');
    },
    options.usageFlushMs,
  );
  const tokens = new TokenService(deps, { sessionTtlSeconds: 3600, ...options.auth }, usage);
  const ctx: AppContext = {
    deps,
    usage,
    tokens,
    credentials: new Credentials(store, clock, tokens, usage),
    reader: new BrandReader(store),
    signIn: new SignInService(
      deps,
      tokens,
      { ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits },
      options.passwordHasher,
    ),
  };
  app.addHook('preClose', () => transport.drain());
  app.addHook('onClose', async () => {
    ctx.credentials.close();
    ctx.reader.close();
    await usage.close();
  });

  void app.register(fastifySwagger, OPENAPI_OPTIONS);
  void app.register(async (scope: ZodApp) => {
    scope.get('/openapi.json', { schema: { hide: true } }, () => scope.swagger());
    await scope.register(docsRoutes);
    healthRoutes(scope, store);
    brandAgentRoutes(scope, ctx);
    signInRoute(scope, ctx);
    // Cookies and CSRF only where a browser session can be used: the read operation never parses a cookie.
    await scope.register(async (browser: ZodApp) => {
      await browser.register(fastifyCookie);
      await browser.register(fastifyCsrf, {
        cookieKey: CSRF_COOKIE,
        cookieOpts: COOKIE_OPTIONS,
        getToken: (request) => {
          const token = request.headers['x-csrf-token'];
          return typeof token === 'string' ? token : undefined;
        },
      });
      // The read operation, outside this scope, has no path parameters or query to check.
      browser.addHook('preValidation', refuseNulInPathAndQuery);
      sessionRoutes(browser, ctx, options.installDir);
      await browser.register(async (api: ZodApp) => {
        api.addHook('onRequest', authenticate(ctx));
        api.addHook('onRequest', requireCsrfForCookieWrites(api));
        for (const route of ACCOUNT_ROUTES) route(api, ctx);
        await api.register((workspace: ZodApp, _workspaceOptions, workspaceDone) => {
          // Before validation: a caller with no access learns nothing, not even what a valid body looks like.
          workspace.addHook('preValidation', authorizeWorkspace(ctx));
          for (const route of WORKSPACE_ROUTES) route(workspace, ctx);
          workspaceDone();
        });
      });
    });
    const { consoleDir } = options;
    if (consoleDir !== undefined) await scope.register((site: ZodApp) => consoleRoutes(site, consoleDir));
  });
  return app;
}
