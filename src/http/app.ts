import { METHODS, type Server } from 'node:http';
import fastifySwagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { serializerCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Clock, systemClock } from '../core/clock.js';
import { AppError } from '../core/errors.js';
import { keySigners } from '../core/key-signature.js';
import { BrandReader } from '../services/brand/reader.js';
import { Credentials } from '../services/auth/credentials.js';
import { type PasswordHasher, passwordHasher } from '../services/auth/passwords.js';
import { DEFAULT_SIGN_IN_LIMITS, SignInThrottle, type SignInLimits } from '../services/auth/sign-in.js';
import { TokenKeys, verifyUserToken } from '../services/auth/tokens.js';
import { lazyChildLoggerFactory } from '../logger.js';
import {
  type AuthConfig,
  DEFAULT_EMAIL_FROM,
  DEFAULT_HTTP_TIMEOUTS,
  type DeliveryConfig,
  type EmailConfig,
  type HttpTimeouts,
  localBaseUrl,
} from '../config.js';
import {
  AccountLinkThrottle,
  type AccountLinkLimits,
  DEFAULT_ACCOUNT_LINK_LIMITS,
} from '../services/accounts/account-email.js';
import { ReadLimits, type ReadLimitSettings } from '../services/brand/read-limits.js';
import { deliveryQueueDepth, Metrics } from '../services/metrics/metrics.js';
import type { SecretBox } from '../services/shared/secret-box.js';
import { UsageRecorder } from '../services/auth/usage.js';
import { OAuthTokens } from '../services/oauth/tokens.js';
import type { Store } from '../store/store.js';
import { AccessLog } from './access-log.js';
import type { AppDeps, AppServices } from './context.js';
import { OPENAPI_OPTIONS } from './openapi.js';
import { handleError } from './problem.js';
import { parseJsonBodies, validatorCompiler } from './request-input.js';
import { BRAND_AGENT_PATH, brandContextReads } from './routes/brand-agent.js';
import { routeTree } from './routes/index.js';
import type { McpRouteOptions } from './routes/mcp.js';
import { requestId } from './request-id.js';
import { createHttpTransport } from './transport.js';

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
  /** Seals webhook secrets and email bodies, its key read as the store was opened (`SecretBox.load`). */
  secrets: SecretBox;
  /**
   * Signs brand read keys, and verifies those the key cache misses without a lookup (`loadKeySigningSecret`,
   * src/services/keys/signing-secret.ts); without it keys are unsigned and looked up.
   */
  keySigningSecret?: Buffer | undefined;
  /** Webhook address rules (only public https:// targets by default) and the endpoints a workspace may have. */
  webhooks?: Partial<Pick<DeliveryConfig, 'allowPrivateUrls' | 'endpointLimit'>>;
  /**
   * Account email's sender (EMAIL_FROM) and where its links point (PUBLIC_URL): by default, the address the
   * app listens on.
   */
  email?: Partial<Pick<EmailConfig, 'from' | 'publicUrl'>>;
  /** Throttles of password resets and account links; the defaults for any left out. */
  accountLinkLimits?: Partial<AccountLinkLimits>;
  /** What GET /metrics exports (a fresh registry by default); `false` (METRICS=off) counts nothing, no /metrics. */
  metrics?: Metrics | false;
  /** METRICS_TOKEN: GET /metrics then needs it as a bearer token. */
  metricsToken?: string | undefined;
  /** The read operation's budget per credential (RATE_LIMIT_READS, REDIS_URL); no limit without it. */
  readLimits?: ReadLimitSettings;
  /** Remote MCP (/mcp): MCP_ALLOWED_ORIGINS, and what verifies OAuth access tokens (the OAuth server's by default). */
  mcp?: Partial<McpRouteOptions>;
}

/** Where this machine reaches the server, as a URL; before it listens (requests injected in tests), localhost. */
function listeningUrl(server: Server): () => string {
  // Asked on every /mcp request (its Host and Origin checks): the address is known once the server listens.
  let known: string | undefined;
  return () => {
    if (known !== undefined) return known;
    const address = server.address();
    if (typeof address !== 'object' || address === null) return 'http://localhost';
    known = localBaseUrl(address.address, address.port);
    return known;
  };
}

/** What every route reaches as `app.services`: the use cases' deps, and the components that keep state. */
function buildServices(options: AppOptions, clock: Clock, server: Server): AppServices {
  const { store, logger, secrets } = options;
  const signers = keySigners(options.keySigningSecret);
  const usage = new UsageRecorder(
    store,
    (error: unknown) => {
      logger.error({ err: error }, 'could not record last use of keys and tokens');
    },
    options.usageFlushMs,
  );
  const deps: AppDeps = {
    store,
    clock,
    keySigners: signers,
    tokenKeys: new TokenKeys(store, { sessionTtlSeconds: 3600, ...options.auth }),
    usage,
    passwords: options.passwordHasher ?? passwordHasher,
    secrets,
    webhookSettings: {
      allowPrivate: options.webhooks?.allowPrivateUrls ?? false,
      endpointLimit: options.webhooks?.endpointLimit,
    },
  };
  const configuredUrl = options.email?.publicUrl;
  const accountMail = {
    secrets,
    from: options.email?.from ?? DEFAULT_EMAIL_FROM,
    publicUrl: configuredUrl === undefined ? listeningUrl(server) : () => configuredUrl,
  };
  const userTokens = { verify: (token: string) => verifyUserToken(deps, token) };
  return {
    deps,
    credentials: new Credentials(store, clock, userTokens, { signers, log: logger }, usage),
    reader: new BrandReader(store),
    signInThrottle: new SignInThrottle({ ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits }, clock),
    accountMail,
    accountLinks: new AccountLinkThrottle(
      { ...DEFAULT_ACCOUNT_LINK_LIMITS, ...options.accountLinkLimits },
      clock,
    ),
    readLimits: options.readLimits && new ReadLimits(options.readLimits, logger),
    oauthTokens: new OAuthTokens(deps, (error: unknown) => {
      logger.error({ err: error }, 'could not record last use of an OAuth grant');
    }),
  };
}

function noDefaultCompiler(): never {
  throw new Error(
    'every route is compiled by zod: setValidatorCompiler and setSerializerCompiler come first',
  );
}

export function buildApp(options: AppOptions): FastifyInstance {
  const { logger, clock = systemClock } = options;
  const metrics = options.metrics === false ? undefined : (options.metrics ?? new Metrics(BRAND_AGENT_PATH));
  const transport = createHttpTransport(
    logger,
    { ...DEFAULT_HTTP_TIMEOUTS, ...options.httpTimeouts },
    metrics,
  );
  const app = Fastify({
    ...transport.serverOptions,
    loggerInstance: logger,
    logController: new AccessLog(metrics, BRAND_AGENT_PATH),
    genReqId: requestId,
    // A request's logger is made on its first line: most reads write none (src/logger.ts).
    childLoggerFactory: lazyChildLoggerFactory,
    forceCloseConnections: 'idle',
    trustProxy: options.trustProxy ?? false,
    // zod validates and serializes every route (the compilers set below): without these stand-ins, Fastify
    // loads ajv and fast-json-stringify as it starts (about 100 ms) for default compilers nothing uses.
    schemaController: {
      compilersFactory: { buildValidator: noDefaultCompiler, buildSerializer: noDefaultCompiler },
    },
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
    return handleError(
      new AppError('not_found', { reason: 'route', method: request.method, path: shown }),
      request,
      reply,
    );
  });
  app.decorateRequest('principal', null);
  app.decorateRequest('viaSessionCookie', false);
  app.decorateRequest('membership', null);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  const services = buildServices(options, clock, app.server);
  app.decorate('services', services);
  const readBrandContext = brandContextReads(app, metrics);
  transport.answerBelowRouter(BRAND_AGENT_PATH, readBrandContext);
  if (metrics) {
    metrics.watchCache('brands', services.reader.cacheStats);
    metrics.watchCache('brand_versions', services.reader.pinnedStats);
    metrics.watchCache('keys', services.credentials.cacheStats);
    metrics.watchKeySignatures(services.credentials.signatureStats);
    metrics.watchChangeFeed(options.store.changes);
    metrics.watchDeliveryQueue(deliveryQueueDepth(options.store));
    if (services.readLimits?.throughRedis) metrics.watchReadLimits(services.readLimits);
  }
  app.addHook('preClose', () => transport.drain());
  app.addHook('onClose', async () => {
    await services.credentials.close();
    services.reader.close();
    await services.accountLinks.settled();
    await services.deps.usage.close();
  });

  void app.register(fastifySwagger, OPENAPI_OPTIONS);
  void app.register(routeTree, {
    store: options.store,
    consoleDir: options.consoleDir,
    installDir: options.installDir,
    metrics,
    metricsToken: options.metricsToken,
    readBrandContext,
    mcp: {
      allowedOrigins: options.mcp?.allowedOrigins ?? [],
      accessTokens: options.mcp?.accessTokens ?? services.oauthTokens,
    },
  });
  return app;
}
