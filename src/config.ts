import { resolve } from 'node:path';
import ms from 'ms';
import { parseAddress } from './contract/email.js';
import { DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from './core/delivery-schedule.js';
import { SIGNING_SECRET_BYTES } from './core/key-signature.js';

export type DatabaseConfig = { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };

export interface Config {
  database: DatabaseConfig;
  port: number;
  host: string;
  logLevel: string;
  /** User tokens: this service's own, and an identity provider's when configured. */
  auth: AuthConfig;
  /** Whose X-Forwarded-For to believe for the client address (sign-in throttling): Fastify's trustProxy. */
  trustProxy: boolean | string[];
  /** The HTTP timeouts set by the environment; the transport's defaults for the rest. */
  httpTimeouts: Partial<HttpTimeouts>;
  delivery: DeliveryConfig;
  email: EmailConfig;
  operations: OperationsConfig;
  /**
   * BRAND_CONTEXT_KEY_SIGNING_SECRET: signs brand read keys, shared by every node and the CLI. Unset, SQLite keeps
   * one in a file beside its database and PostgreSQL signs nothing (src/services/keys/signing-secret.ts).
   */
  keySigningSecret: Buffer | undefined;
  /** MCP_ALLOWED_ORIGINS: web origins besides PUBLIC_URL's whose pages may call /mcp (docs/mcp.md "Remote MCP"). */
  mcpAllowedOrigins: string[];
}

/** User tokens (src/services/auth/tokens.ts): this service's own, and an identity provider's when configured. */
export interface AuthConfig {
  /** HS256 secret for tokens this service issues; generated once and kept in the store when absent. */
  jwtSecret?: string;
  sessionTtlSeconds: number;
  /**
   * Tokens of an existing identity provider, verified against its JWKS, and refused once `iat` is more than
   * `maxTokenAgeSeconds` ago (BRAND_CONTEXT_JWT_MAX_AGE), whatever their `exp` says.
   */
  identityProvider?: {
    jwksUrl: string;
    issuer?: string;
    audience?: string;
    emailClaim: string;
    maxTokenAgeSeconds: number;
  };
}

/** How long the server waits for its clients (docs/configuration.md); src/http/transport.ts applies them. */
export interface HttpTimeouts {
  /** For the request line and headers (Node's headersTimeout); a stalled client gets 408. */
  headersMs: number;
  /** For the whole request, body included (Node's requestTimeout); a slow body gets 408. */
  requestMs: number;
  /** How long an idle keep-alive connection stays open: longer than a load balancer's idle timeout. */
  keepAliveMs: number;
  /** Once shutdown begins, how long idle keep-alive connections may still send a request (answered 503). */
  drainMs: number;
}

export const DEFAULT_HTTP_TIMEOUTS: HttpTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 72_000,
  drainMs: 1_000,
};

/** A budget of requests per window (docs/operations.md "Operations"). */
export interface RateLimit {
  points: number;
  windowMs: number;
}

/** Metrics and rate limits (docs/operations.md "Operations"). */
export interface OperationsConfig {
  /** Counting for GET /metrics; false with METRICS=off (nothing counted, no /metrics: to measure its cost). */
  metrics: boolean;
  /** GET /metrics needs `Authorization: Bearer <token>`; unset, it is open (scrape it on a private network). */
  metricsToken: string | undefined;
  /** Reads of the brand per credential and window; undefined with RATE_LIMIT_READS=off. */
  readRateLimit: RateLimit | undefined;
  /** One rate-limit budget across nodes; unset, each node counts on its own. */
  redisUrl: string | undefined;
}

/** Transactional and account email (docs/email.md "Transactional email", docs/account-email.md "Account email"). */
export interface EmailConfig {
  /**
   * The relay: `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://…:465`. Unset: nothing leaves
   * the machine, messages are kept as `captured` (development).
   */
  smtpUrl: string | undefined;
  /** The sender of account email (invites, password resets, key expiry notices). */
  from: string;
  /** Where links in account email point: this service's address as users reach it. */
  publicUrl: string | undefined;
}

/** The delivery queue and webhooks (docs/webhooks.md "Webhooks"). */
export interface DeliveryConfig {
  /** Deliveries this node sends at once; 0 runs no worker on this node. */
  workers: number;
  /** Delays between attempts, in milliseconds. */
  retrySchedule: number[];
  /** How long a claimed delivery stays this node's before another may take it. */
  leaseMs: number;
  /** `http://`, loopback and private targets (development and tests). */
  allowPrivateUrls: boolean;
  /** Webhook endpoints one workspace may have (`WEBHOOK_ENDPOINT_LIMIT`). */
  endpointLimit: number;
  /** Seals webhook secrets at rest; without it a key kept in the database does. */
  encryptionKey: Buffer | undefined;
}

/** Bad configuration, reported to the operator as one line. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DEFAULT_SQLITE_PATH = './data/brand-context.db';
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** docs/configuration.md "Configuration": `postgres://…` → PostgreSQL; `sqlite:PATH` or unset → SQLite at ./data/brand-context.db. */
export function parseDatabaseUrl(url: string | undefined, cwd = process.cwd()): DatabaseConfig {
  if (url === undefined || url === '') return { kind: 'sqlite', path: resolve(cwd, DEFAULT_SQLITE_PATH) };
  if (/^postgres(ql)?:\/\//.test(url)) {
    try {
      new URL(url);
    } catch {
      throw new ConfigError('DATABASE_URL is not a valid postgres:// URL');
    }
    return { kind: 'postgres', url };
  }
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length).replace(/^\/\/(?=\/)/, '');
    if (path === '')
      throw new ConfigError('DATABASE_URL sqlite: needs a file path, e.g. sqlite:./data/brand-context.db');
    return { kind: 'sqlite', path: path === ':memory:' ? path : resolve(cwd, path) };
  }
  throw new ConfigError('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
}

const HTTP_TIMEOUT_VARIABLES = [
  ['HTTP_HEADERS_TIMEOUT', 'headersMs'],
  ['HTTP_REQUEST_TIMEOUT', 'requestMs'],
  ['HTTP_KEEP_ALIVE_TIMEOUT', 'keepAliveMs'],
] as const;
const MAX_HTTP_TIMEOUT_SECONDS = 3600;

/**
 * HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT and HTTP_KEEP_ALIVE_TIMEOUT, in whole seconds (1-3600): only those
 * set, the others keep their defaults. Headers must arrive within the request's time.
 */
export function parseHttpTimeouts(env: NodeJS.ProcessEnv): Partial<HttpTimeouts> {
  const timeouts: Partial<HttpTimeouts> = {};
  for (const [variable, field] of HTTP_TIMEOUT_VARIABLES) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > MAX_HTTP_TIMEOUT_SECONDS) {
      throw new ConfigError(`${variable} must be 1-${MAX_HTTP_TIMEOUT_SECONDS} seconds, got "${value}"`);
    }
    timeouts[field] = Number(value) * 1000;
  }
  const { headersMs, requestMs } = { ...DEFAULT_HTTP_TIMEOUTS, ...timeouts };
  if (headersMs > requestMs) {
    throw new ConfigError(
      `HTTP_HEADERS_TIMEOUT (${headersMs / 1000} s) must not exceed HTTP_REQUEST_TIMEOUT (${requestMs / 1000} s)`,
    );
  }
  return timeouts;
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 8787;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new ConfigError(`PORT must be 0-65535, got "${value}"`);
  return port;
}

const MIN_JWT_SECRET = 32;
/** An identity provider's token is refused a day after its `iat` (the longest session this service issues). */
const DEFAULT_JWT_MAX_AGE_SECONDS = 86_400;
/** …and never accepted for longer than a personal access token lives (90 days). */
const MAX_JWT_MAX_AGE_SECONDS = 90 * 86_400;

/** User tokens: our own (signed with BRAND_CONTEXT_JWT_SECRET) and, optionally, an identity provider's. */
export function parseAuthSettings(env: NodeJS.ProcessEnv): AuthConfig {
  const secret = env.BRAND_CONTEXT_JWT_SECRET || undefined;
  if (secret !== undefined && secret.length < MIN_JWT_SECRET) {
    throw new ConfigError(`BRAND_CONTEXT_JWT_SECRET must be at least ${MIN_JWT_SECRET} characters`);
  }
  const ttl = env.BRAND_CONTEXT_SESSION_TTL || '3600';
  if (!/^\d+$/.test(ttl) || Number(ttl) < 60 || Number(ttl) > 86_400) {
    throw new ConfigError('BRAND_CONTEXT_SESSION_TTL must be 60-86400 seconds');
  }
  const jwksUrl = env.BRAND_CONTEXT_JWKS_URL || undefined;
  if (jwksUrl !== undefined && !/^https?:\/\/\S+$/.test(jwksUrl)) {
    throw new ConfigError('BRAND_CONTEXT_JWKS_URL must be an http(s) URL');
  }
  const maxAge = env.BRAND_CONTEXT_JWT_MAX_AGE || String(DEFAULT_JWT_MAX_AGE_SECONDS);
  if (!/^\d+$/.test(maxAge) || Number(maxAge) < 60 || Number(maxAge) > MAX_JWT_MAX_AGE_SECONDS) {
    throw new ConfigError(`BRAND_CONTEXT_JWT_MAX_AGE must be 60-${MAX_JWT_MAX_AGE_SECONDS} seconds`);
  }
  return {
    jwtSecret: secret,
    sessionTtlSeconds: Number(ttl),
    identityProvider:
      jwksUrl === undefined
        ? undefined
        : {
            jwksUrl,
            issuer: env.BRAND_CONTEXT_JWT_ISSUER || undefined,
            audience: env.BRAND_CONTEXT_JWT_AUDIENCE || undefined,
            emailClaim: env.BRAND_CONTEXT_JWT_EMAIL_CLAIM || 'email',
            maxTokenAgeSeconds: Number(maxAge),
          },
  };
}

/** TRUST_PROXY: unset/false, true (any proxy), or a comma-separated list of proxy addresses/CIDRs. */
export function parseTrustProxy(value: string | undefined): boolean | string[] {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  const addresses = value.split(',').map((part) => part.trim());
  if (addresses.some((address) => !/^[0-9a-fA-F.:/]+$/.test(address))) {
    throw new ConfigError('TRUST_PROXY must be true, false, or a comma-separated list of proxy addresses');
  }
  return addresses;
}

const MAX_WORKERS = 64;
const DEFAULT_WORKERS = 4;
/** Endpoints per workspace: enough for every kind of receiver, few enough that none crowds the queue. */
export const DEFAULT_WEBHOOK_ENDPOINT_LIMIT = 25;
const MAX_WEBHOOK_ENDPOINT_LIMIT = 10_000;
/** Longer than an attempt can take (10 s), with room for recording it. */
const MIN_LEASE_SECONDS = 15;
const DEFAULT_LEASE_SECONDS = 60;

function parseBoundedInteger(
  variable: string,
  value: string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(
      `${variable} must be a whole number from ${String(min)} to ${String(max)}, got "${value}"`,
    );
  }
  return Number(value);
}

/**
 * DELIVERY_WORKERS, DELIVERY_RETRY_SCHEDULE, DELIVERY_LEASE_SECONDS, WEBHOOK_ALLOW_PRIVATE_URLS,
 * WEBHOOK_ENDPOINT_LIMIT, BRAND_CONTEXT_ENCRYPTION_KEY.
 */
export function parseDeliverySettings(env: NodeJS.ProcessEnv): DeliveryConfig {
  const schedule = parseRetrySchedule(env.DELIVERY_RETRY_SCHEDULE || DEFAULT_RETRY_SCHEDULE);
  if ('error' in schedule) throw new ConfigError(`DELIVERY_RETRY_SCHEDULE: ${schedule.error}`);
  const allow = env.WEBHOOK_ALLOW_PRIVATE_URLS || 'false';
  if (allow !== 'true' && allow !== 'false') {
    throw new ConfigError(`WEBHOOK_ALLOW_PRIVATE_URLS must be true or false, got "${allow}"`);
  }
  const keyText = env.BRAND_CONTEXT_ENCRYPTION_KEY || undefined;
  const encryptionKey = keyText === undefined ? undefined : Buffer.from(keyText, 'base64');
  if (encryptionKey !== undefined && encryptionKey.length !== 32) {
    throw new ConfigError(
      'BRAND_CONTEXT_ENCRYPTION_KEY must be 32 bytes in base64 (openssl rand -base64 32)',
    );
  }
  return {
    workers: parseBoundedInteger('DELIVERY_WORKERS', env.DELIVERY_WORKERS, DEFAULT_WORKERS, 0, MAX_WORKERS),
    retrySchedule: schedule,
    leaseMs:
      parseBoundedInteger(
        'DELIVERY_LEASE_SECONDS',
        env.DELIVERY_LEASE_SECONDS,
        DEFAULT_LEASE_SECONDS,
        MIN_LEASE_SECONDS,
        3600,
      ) * 1000,
    allowPrivateUrls: allow === 'true',
    endpointLimit: parseBoundedInteger(
      'WEBHOOK_ENDPOINT_LIMIT',
      env.WEBHOOK_ENDPOINT_LIMIT,
      DEFAULT_WEBHOOK_ENDPOINT_LIMIT,
      1,
      MAX_WEBHOOK_ENDPOINT_LIMIT,
    ),
    encryptionKey,
  };
}

/** The sender of account email when EMAIL_FROM is not set. */
export const DEFAULT_EMAIL_FROM = 'Brand Context <no-reply@brand-context.localhost>';

/** SMTP_URL, EMAIL_FROM, PUBLIC_URL. */
export function parseEmailSettings(env: NodeJS.ProcessEnv): EmailConfig {
  const smtpUrl = env.SMTP_URL || undefined;
  if (smtpUrl !== undefined) {
    let url: URL | undefined;
    try {
      url = new URL(smtpUrl);
    } catch {
      // Reported below, without echoing the URL: it may hold the relay's password.
    }
    if (url?.protocol !== 'smtp:' && url?.protocol !== 'smtps:') {
      throw new ConfigError('SMTP_URL must be smtp://user:pass@host:587 or smtps://user:pass@host:465');
    }
    if (url.hostname === '') {
      throw new ConfigError("SMTP_URL must name the relay's host, as smtp://user:pass@mail.example.com:587");
    }
  }
  const from = env.EMAIL_FROM || DEFAULT_EMAIL_FROM;
  if (typeof parseAddress(from) === 'string') {
    throw new ConfigError(
      `EMAIL_FROM must be an address, as "Brand Context <no-reply@example.com>", got "${from}"`,
    );
  }
  const publicUrl = env.PUBLIC_URL || undefined;
  if (publicUrl !== undefined) checkPublicUrl(publicUrl);
  return { smtpUrl, from, publicUrl: publicUrl?.replace(/\/+$/, '') };
}

/** Links are PUBLIC_URL followed by their path and query: it can have a path, but no query or fragment. */
function checkPublicUrl(publicUrl: string): void {
  const parsed = URL.canParse(publicUrl) ? new URL(publicUrl) : undefined;
  // Refused without repeating it: it may hold a password.
  if (parsed !== undefined && (parsed.username !== '' || parsed.password !== '')) {
    throw new ConfigError('PUBLIC_URL must not hold a user or password: links would show them');
  }
  if (parsed === undefined || !/^https?:\/\/[^\s/]+(\/\S*)?$/.test(publicUrl)) {
    throw new ConfigError(
      `PUBLIC_URL must be an http(s) URL, as https://brand.example.com, got "${publicUrl}"`,
    );
  }
  if (/[?#]/.test(publicUrl)) {
    throw new ConfigError(
      `PUBLIC_URL must not have a query or fragment (links add their own path and query), got "${publicUrl}"`,
    );
  }
}

/** The unspecified addresses: listening on them is listening on every address of the machine. */
const EVERY_ADDRESS = new Set(['0.0.0.0', '::', '0:0:0:0:0:0:0:0']);

/**
 * The address this machine reaches a server on `host`:`port` at. Listening on every address is reached on
 * the loopback: http://0.0.0.0:… is no address to give anyone.
 */
export function localBaseUrl(host: string, port: number): string {
  const reachable = EVERY_ADDRESS.has(host) ? '127.0.0.1' : host;
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${String(port)}`;
}

/** The relay of SMTP_URL as logs show it: scheme, host and port (nodemailer's default), never the user or password. */
export function relayAddress(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const port = url.port || (url.protocol === 'smtps:' ? '465' : '587');
  return `${url.protocol}//${url.hostname}:${port}`;
}

/**
 * What `serve` warns of at start (docs/account-email.md "Account email"): settings with which account email would come
 * from an address relays refuse, or hold links to where users cannot reach this server. `listenUrl` is where
 * links point without PUBLIC_URL.
 */
export function emailWarnings(config: Pick<Config, 'host' | 'email'>, listenUrl: string): string[] {
  const { smtpUrl, from, publicUrl } = config.email;
  const warnings: string[] = [];
  if (smtpUrl !== undefined && from === DEFAULT_EMAIL_FROM) {
    warnings.push(
      `EMAIL_FROM is not set: account email goes out from ${DEFAULT_EMAIL_FROM}, which relays refuse or mark as spam; set it to an address of your domain`,
    );
  }
  if (publicUrl === undefined && (smtpUrl !== undefined || EVERY_ADDRESS.has(config.host))) {
    warnings.push(
      `PUBLIC_URL is not set: links in account email point at ${listenUrl}, which only this machine reaches; set it to the address users reach this server at`,
    );
  }
  return warnings;
}

/** What `serve` warns of at start: a metrics setting that does nothing as configured. */
export function metricsWarnings(config: Pick<Config, 'operations'>): string[] {
  const { metrics, metricsToken } = config.operations;
  return !metrics && metricsToken !== undefined
    ? ['METRICS_TOKEN is set but METRICS=off: there is no /metrics for it to guard; unset one of them']
    : [];
}

/** What `serve` warns of at start: a Redis that the read limit, switched off, never asks. */
export function readLimitWarnings(config: Pick<Config, 'operations'>): string[] {
  const { readRateLimit, redisUrl } = config.operations;
  return readRateLimit === undefined && redisUrl !== undefined
    ? [
        'REDIS_URL is set but RATE_LIMIT_READS=off: nothing is counted, so Redis is not used; unset one of them',
      ]
    : [];
}

/** RATE_LIMIT_READS when unset: 100 reads a second per credential, averaged over a minute. */
export const DEFAULT_READ_RATE_LIMIT = '6000/60s';
const MIN_METRICS_TOKEN = 16;
const MAX_RATE_WINDOW_MS = 24 * 3600 * 1000;

/** `6000/60s`, `100/1s`, `10000/1h`: a whole number of requests per window (1 s to 24 h); `off` for none. */
export function parseRateLimit(variable: string, value: string): RateLimit | undefined {
  if (value === 'off') return undefined;
  const match = /^(\d+)\/(\d+(?:ms|s|m|h))$/.exec(value);
  const points = Number(match?.[1]);
  const windowMs = match?.[2] === undefined ? Number.NaN : ms(match[2] as ms.StringValue);
  if (
    !match ||
    points < 1 ||
    !Number.isSafeInteger(points) ||
    !(windowMs >= 1000 && windowMs <= MAX_RATE_WINDOW_MS)
  ) {
    throw new ConfigError(
      `${variable} must be requests per window (1 s to 24 h), as 6000/60s, or off; got "${value}"`,
    );
  }
  return { points, windowMs };
}

/** METRICS, METRICS_TOKEN, RATE_LIMIT_READS, REDIS_URL. */
export function parseOperationsSettings(env: NodeJS.ProcessEnv): OperationsConfig {
  const metrics = env.METRICS || 'on';
  if (metrics !== 'on' && metrics !== 'off') throw new ConfigError('METRICS must be on or off');
  const metricsToken = env.METRICS_TOKEN || undefined;
  // A bearer token is token68 (RFC 6750): anything else, curl and Prometheus cannot send as it is set.
  if (
    metricsToken !== undefined &&
    (metricsToken.length < MIN_METRICS_TOKEN || !/^[A-Za-z0-9._~+/-]+=*$/.test(metricsToken))
  ) {
    throw new ConfigError(
      `METRICS_TOKEN must be at least ${MIN_METRICS_TOKEN} characters of letters, digits and - . _ ~ + / (then = only at the end), without spaces (openssl rand -hex 24)`,
    );
  }
  const redisUrl = env.REDIS_URL || undefined;
  if (redisUrl !== undefined && !(/^rediss?:\/\/\S+$/.test(redisUrl) && URL.canParse(redisUrl))) {
    // Not echoed: it may hold a password.
    throw new ConfigError('REDIS_URL must be a redis:// or rediss:// URL, as redis://127.0.0.1:6379');
  }
  return {
    metrics: metrics === 'on',
    metricsToken,
    readRateLimit: parseRateLimit('RATE_LIMIT_READS', env.RATE_LIMIT_READS || DEFAULT_READ_RATE_LIMIT),
    redisUrl,
  };
}

/**
 * A key-signing secret as BRAND_CONTEXT_KEY_SIGNING_SECRET and the key file write it, 32 bytes in base64
 * (padding optional); undefined when `text` is not exactly that.
 */
export function decodeSigningSecret(text: string): Buffer | undefined {
  const secret = Buffer.from(text, 'base64');
  // Buffer.from skips what is not base64: read back, the text must be the same bytes.
  const same = secret.toString('base64').replace(/=+$/, '') === text.replace(/=+$/, '');
  return secret.length === SIGNING_SECRET_BYTES && same ? secret : undefined;
}

/**
 * BRAND_CONTEXT_KEY_SIGNING_SECRET, 32 bytes in base64 (docs/keys.md "Brand read keys"): kept out of the database, so a
 * copy of the database cannot make keys.
 */
export function parseKeySigningSecret(env: NodeJS.ProcessEnv): Buffer | undefined {
  const text = env.BRAND_CONTEXT_KEY_SIGNING_SECRET?.trim() || undefined;
  if (text === undefined) return undefined;
  const secret = decodeSigningSecret(text);
  if (secret === undefined) {
    // Not echoed: it is a secret, even when mistyped.
    throw new ConfigError(
      'BRAND_CONTEXT_KEY_SIGNING_SECRET must be 32 bytes in base64 (openssl rand -base64 32), the same on every node',
    );
  }
  return secret;
}

/**
 * MCP_ALLOWED_ORIGINS: comma-separated origins (`https://app.example.com`, a port if not the scheme's own),
 * as browsers send them in `Origin`: scheme, host and port, no path.
 */
export function parseMcpAllowedOrigins(value: string | undefined): string[] {
  const origins = (value ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const origin of origins) {
    const parsed = URL.canParse(origin) ? new URL(origin) : undefined;
    if (parsed === undefined || !/^https?:$/.test(parsed.protocol) || parsed.origin !== origin) {
      throw new ConfigError(
        `MCP_ALLOWED_ORIGINS must be comma-separated origins, as https://app.example.com (scheme, host and port, no path or trailing slash), got "${origin}"`,
      );
    }
  }
  return origins;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const logLevel = env.LOG_LEVEL || 'info';
  if (!LOG_LEVELS.includes(logLevel))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  return {
    database: parseDatabaseUrl(env.DATABASE_URL),
    port: parsePort(env.PORT),
    host: env.HOST || '127.0.0.1',
    logLevel,
    auth: parseAuthSettings(env),
    trustProxy: parseTrustProxy(env.TRUST_PROXY),
    httpTimeouts: parseHttpTimeouts(env),
    delivery: parseDeliverySettings(env),
    email: parseEmailSettings(env),
    operations: parseOperationsSettings(env),
    keySigningSecret: parseKeySigningSecret(env),
    mcpAllowedOrigins: parseMcpAllowedOrigins(env.MCP_ALLOWED_ORIGINS),
  };
}
