import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  emailWarnings,
  loadConfig,
  localBaseUrl,
  metricsWarnings,
  parseAuthSettings,
  parseDatabaseUrl,
  parseDeliverySettings,
  parseEmailSettings,
  parseMcpAllowedOrigins,
  parseOperationsSettings,
  parseTrustProxy,
  readLimitWarnings,
  relayAddress,
} from './config.js';

const CWD = resolve('/srv/brand');

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('parseDatabaseUrl', () => {
  it('uses SQLite at <cwd>/data/brand-context.db when DATABASE_URL is unset or empty', () => {
    const expected = { kind: 'sqlite', path: resolve(CWD, 'data', 'brand-context.db') };
    expect(parseDatabaseUrl(undefined, CWD)).toEqual(expected);
    expect(parseDatabaseUrl('', CWD)).toEqual(expected);
  });

  it('defaults the working directory to the process working directory', () => {
    expect(parseDatabaseUrl(undefined)).toEqual({
      kind: 'sqlite',
      path: resolve(process.cwd(), 'data', 'brand-context.db'),
    });
  });

  it('resolves a relative sqlite: path against the working directory', () => {
    expect(parseDatabaseUrl('sqlite:./x.db', CWD)).toEqual({ kind: 'sqlite', path: resolve(CWD, 'x.db') });
    expect(parseDatabaseUrl('sqlite:db/x.db', CWD)).toEqual({
      kind: 'sqlite',
      path: resolve(CWD, 'db', 'x.db'),
    });
  });

  it('keeps an absolute sqlite: path, with or without the // of a URL', () => {
    expect(parseDatabaseUrl('sqlite:/abs/x.db', CWD)).toEqual({ kind: 'sqlite', path: resolve('/abs/x.db') });
    expect(parseDatabaseUrl('sqlite:///abs/x.db', CWD)).toEqual({
      kind: 'sqlite',
      path: resolve('/abs/x.db'),
    });
  });

  it('keeps sqlite::memory: as an in-memory database', () => {
    expect(parseDatabaseUrl('sqlite::memory:', CWD)).toEqual({ kind: 'sqlite', path: ':memory:' });
  });

  it('recognises postgres:// and postgresql:// URLs and keeps them whole', () => {
    const url = 'postgres://brand:secret@db.internal:5432/brand?sslmode=require';
    expect(parseDatabaseUrl(url, CWD)).toEqual({ kind: 'postgres', url });
    expect(parseDatabaseUrl('postgresql://localhost/brand', CWD)).toEqual({
      kind: 'postgres',
      url: 'postgresql://localhost/brand',
    });
  });

  it('rejects a postgres:// URL that cannot be parsed', () => {
    expect(configError(() => parseDatabaseUrl('postgres://[broken', CWD)).message).toBe(
      'DATABASE_URL is not a valid postgres:// URL',
    );
  });

  it.each(['mysql://localhost/brand', 'file:./x.db', './x.db', 'POSTGRES://localhost/brand'])(
    'rejects %s with a one-line message naming the supported schemes',
    (url) => {
      const error = configError(() => parseDatabaseUrl(url, CWD));
      expect(error.name).toBe('ConfigError');
      expect(error.message).toBe('DATABASE_URL must start with postgres://, postgresql:// or sqlite:');
      expect(error.message).not.toContain('\n');
    },
  );

  it('rejects sqlite: with no path, showing an example', () => {
    const error = configError(() => parseDatabaseUrl('sqlite:', CWD));
    expect(error.message).toContain('sqlite:./data/brand-context.db');
    expect(error.message).not.toContain('\n');
  });
});

/** The delivery settings of an environment that sets none (docs/configuration.md "Configuration"). */
const DEFAULT_DELIVERY = {
  workers: 4,
  retrySchedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
  leaseMs: 60_000,
  allowPrivateUrls: false,
  endpointLimit: 25,
  encryptionKey: undefined,
};

const DEFAULT_EMAIL = {
  smtpUrl: undefined,
  from: 'Brand Context <no-reply@brand-context.localhost>',
  publicUrl: undefined,
};

const DEFAULT_OPERATIONS = {
  metrics: true,
  metricsToken: undefined,
  readRateLimit: { points: 6000, windowMs: 60_000 },
  redisUrl: undefined,
};

describe('loadConfig', () => {
  it('defaults to port 8787 on 127.0.0.1, log level info and SQLite in ./data', () => {
    expect(loadConfig({})).toEqual({
      database: { kind: 'sqlite', path: resolve(process.cwd(), 'data', 'brand-context.db') },
      port: 8787,
      host: '127.0.0.1',
      logLevel: 'info',
      auth: { jwtSecret: undefined, sessionTtlSeconds: 3600, identityProvider: undefined },
      trustProxy: false,
      httpTimeouts: {},
      delivery: DEFAULT_DELIVERY,
      email: DEFAULT_EMAIL,
      operations: DEFAULT_OPERATIONS,
      mcpAllowedOrigins: [],
    });
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', HOST: '', LOG_LEVEL: '', DATABASE_URL: '' })).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      logLevel: 'info',
    });
  });

  it('honours PORT, HOST, LOG_LEVEL and DATABASE_URL', () => {
    expect(
      loadConfig({
        PORT: '3000',
        HOST: '0.0.0.0',
        LOG_LEVEL: 'debug',
        DATABASE_URL: 'postgres://localhost/brand',
      }),
    ).toEqual({
      database: { kind: 'postgres', url: 'postgres://localhost/brand' },
      port: 3000,
      host: '0.0.0.0',
      logLevel: 'debug',
      auth: { jwtSecret: undefined, sessionTtlSeconds: 3600, identityProvider: undefined },
      trustProxy: false,
      httpTimeouts: {},
      delivery: DEFAULT_DELIVERY,
      email: DEFAULT_EMAIL,
      operations: DEFAULT_OPERATIONS,
      mcpAllowedOrigins: [],
    });
  });

  it('accepts port 0, asking the system for a free port', () => {
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
  });

  it.each(['abc', '70000', '-1', '80.5', '65536'])('rejects PORT=%s, quoting the value', (port) => {
    expect(configError(() => loadConfig({ PORT: port })).message).toBe(`PORT must be 0-65535, got "${port}"`);
  });

  it('rejects an unknown LOG_LEVEL, listing the accepted ones', () => {
    const error = configError(() => loadConfig({ LOG_LEVEL: 'loud' }));
    expect(error.message).toMatch(/^LOG_LEVEL must be one of /);
    expect(error.message).toContain('info');
    expect(error.message).toContain('debug');
  });

  it('rejects an unsupported DATABASE_URL', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://localhost/brand' })).toThrow(ConfigError);
  });
});

describe('parseAuthSettings', () => {
  it('reads an identity provider from BRAND_CONTEXT_JWKS_URL, its issuer, audience and email claim', () => {
    expect(
      parseAuthSettings({
        BRAND_CONTEXT_JWKS_URL: 'https://idp.example/.well-known/jwks.json',
        BRAND_CONTEXT_JWT_ISSUER: 'https://idp.example/',
        BRAND_CONTEXT_JWT_AUDIENCE: 'brand-context',
      }).identityProvider,
    ).toEqual({
      jwksUrl: 'https://idp.example/.well-known/jwks.json',
      issuer: 'https://idp.example/',
      audience: 'brand-context',
      emailClaim: 'email',
      maxTokenAgeSeconds: 86_400,
    });
  });

  it('refuses provider tokens older than BRAND_CONTEXT_JWT_MAX_AGE seconds, a day unless set', () => {
    const jwks = { BRAND_CONTEXT_JWKS_URL: 'https://idp.example/.well-known/jwks.json' };
    expect(parseAuthSettings(jwks).identityProvider?.maxTokenAgeSeconds).toBe(86_400);
    expect(
      parseAuthSettings({ ...jwks, BRAND_CONTEXT_JWT_MAX_AGE: '3600' }).identityProvider?.maxTokenAgeSeconds,
    ).toBe(3600);
    for (const value of ['59', '7776001', '1h', '-5', '3600.5']) {
      expect(() => parseAuthSettings({ ...jwks, BRAND_CONTEXT_JWT_MAX_AGE: value })).toThrow(
        'BRAND_CONTEXT_JWT_MAX_AGE must be 60-7776000 seconds',
      );
    }
  });

  it('refuses a short JWT secret, a bad session lifetime and a JWKS URL that is not http(s)', () => {
    expect(() => parseAuthSettings({ BRAND_CONTEXT_JWT_SECRET: 'short' })).toThrow(ConfigError);
    expect(() => parseAuthSettings({ BRAND_CONTEXT_SESSION_TTL: '5' })).toThrow(/60-86400/);
    expect(() => parseAuthSettings({ BRAND_CONTEXT_JWKS_URL: 'ftp://x' })).toThrow(/http/);
  });
});

describe('parseTrustProxy', () => {
  it('reads false, true or a list of proxy addresses', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('true')).toBe(true);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(() => parseTrustProxy('everyone')).toThrow(ConfigError);
  });
});

describe('parseMcpAllowedOrigins', () => {
  it('reads none when unset, or a comma-separated list of origins', () => {
    expect(parseMcpAllowedOrigins(undefined)).toEqual([]);
    expect(parseMcpAllowedOrigins('')).toEqual([]);
    expect(parseMcpAllowedOrigins('https://claude.ai, http://localhost:6274')).toEqual([
      'https://claude.ai',
      'http://localhost:6274',
    ]);
  });

  it.each(['claude.ai', 'https://claude.ai/', 'https://claude.ai/app', 'ftp://files.example'])(
    'refuses %s, which is no origin a browser sends',
    (value) => {
      expect(() => parseMcpAllowedOrigins(value)).toThrow(/^MCP_ALLOWED_ORIGINS must be/);
    },
  );
});

describe('parseDeliverySettings', () => {
  it("runs 4 workers on Standard Webhooks' schedule with a 60 s lease, public https:// targets only, when nothing is set", () => {
    expect(parseDeliverySettings({})).toEqual(DEFAULT_DELIVERY);
    expect(
      parseDeliverySettings({
        DELIVERY_WORKERS: '',
        DELIVERY_RETRY_SCHEDULE: '',
        DELIVERY_LEASE_SECONDS: '',
        WEBHOOK_ALLOW_PRIVATE_URLS: '',
        BRAND_CONTEXT_ENCRYPTION_KEY: '',
      }),
    ).toEqual(DEFAULT_DELIVERY);
  });

  it('reads the workers, the schedule, the lease and the private-URL switch', () => {
    expect(
      parseDeliverySettings({
        DELIVERY_WORKERS: '0',
        DELIVERY_RETRY_SCHEDULE: '1s, 2m,3h ,1d',
        DELIVERY_LEASE_SECONDS: '15',
        WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
        WEBHOOK_ENDPOINT_LIMIT: '100',
      }),
    ).toEqual({
      workers: 0,
      retrySchedule: [1_000, 120_000, 10_800_000, 86_400_000],
      leaseMs: 15_000,
      allowPrivateUrls: true,
      endpointLimit: 100,
      encryptionKey: undefined,
    });
    expect(parseDeliverySettings({ DELIVERY_WORKERS: '64', DELIVERY_LEASE_SECONDS: '3600' })).toMatchObject({
      workers: 64,
      leaseMs: 3_600_000,
    });
    expect(parseDeliverySettings({ WEBHOOK_ALLOW_PRIVATE_URLS: 'false' }).allowPrivateUrls).toBe(false);
  });

  it.each([
    ['DELIVERY_WORKERS', '65', 'DELIVERY_WORKERS must be a whole number from 0 to 64, got "65"'],
    ['DELIVERY_WORKERS', '-1', 'DELIVERY_WORKERS must be a whole number from 0 to 64, got "-1"'],
    ['DELIVERY_WORKERS', 'four', 'DELIVERY_WORKERS must be a whole number from 0 to 64, got "four"'],
    [
      'DELIVERY_LEASE_SECONDS',
      '14',
      'DELIVERY_LEASE_SECONDS must be a whole number from 15 to 3600, got "14"',
    ],
    [
      'DELIVERY_LEASE_SECONDS',
      '3601',
      'DELIVERY_LEASE_SECONDS must be a whole number from 15 to 3600, got "3601"',
    ],
    [
      'DELIVERY_LEASE_SECONDS',
      '1.5',
      'DELIVERY_LEASE_SECONDS must be a whole number from 15 to 3600, got "1.5"',
    ],
    [
      'DELIVERY_RETRY_SCHEDULE',
      '5s,soon',
      'DELIVERY_RETRY_SCHEDULE: "soon" is not a delay such as 5s, 5m, 2h or 1d',
    ],
    [
      'DELIVERY_RETRY_SCHEDULE',
      '5s,,5m',
      'DELIVERY_RETRY_SCHEDULE: "" is not a delay such as 5s, 5m, 2h or 1d',
    ],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'yes', 'WEBHOOK_ALLOW_PRIVATE_URLS must be true or false, got "yes"'],
    ['WEBHOOK_ALLOW_PRIVATE_URLS', 'TRUE', 'WEBHOOK_ALLOW_PRIVATE_URLS must be true or false, got "TRUE"'],
    ['WEBHOOK_ENDPOINT_LIMIT', '0', 'WEBHOOK_ENDPOINT_LIMIT must be a whole number from 1 to 10000, got "0"'],
    [
      'WEBHOOK_ENDPOINT_LIMIT',
      '10001',
      'WEBHOOK_ENDPOINT_LIMIT must be a whole number from 1 to 10000, got "10001"',
    ],
    [
      'WEBHOOK_ENDPOINT_LIMIT',
      'twenty',
      'WEBHOOK_ENDPOINT_LIMIT must be a whole number from 1 to 10000, got "twenty"',
    ],
  ])('refuses %s=%s with one line that says what it takes', (variable, value, message) => {
    const error = configError(() => parseDeliverySettings({ [variable]: value }));
    expect(error.message).toBe(message);
    expect(error.message).not.toContain('\n');
  });

  it('refuses a schedule of more than 20 retries', () => {
    expect(
      parseDeliverySettings({ DELIVERY_RETRY_SCHEDULE: Array(20).fill('1s').join(',') }).retrySchedule,
    ).toHaveLength(20);
    expect(
      configError(() => parseDeliverySettings({ DELIVERY_RETRY_SCHEDULE: Array(21).fill('1s').join(',') }))
        .message,
    ).toBe('DELIVERY_RETRY_SCHEDULE: at most 20 retries');
  });

  it('takes a 32-byte BRAND_CONTEXT_ENCRYPTION_KEY in base64, and refuses any other length without echoing it', () => {
    const key = Buffer.alloc(32, 7);
    expect(
      parseDeliverySettings({ BRAND_CONTEXT_ENCRYPTION_KEY: key.toString('base64') }).encryptionKey,
    ).toEqual(key);
    for (const bytes of [16, 31, 33, 64]) {
      const text = Buffer.alloc(bytes, 9).toString('base64');
      const error = configError(() => parseDeliverySettings({ BRAND_CONTEXT_ENCRYPTION_KEY: text }));
      expect(error.message).toBe(
        'BRAND_CONTEXT_ENCRYPTION_KEY must be 32 bytes in base64 (openssl rand -base64 32)',
      );
      expect(error.message).not.toContain(text);
    }
  });

  it('is part of loadConfig, so a bad delivery setting stops the service at start', () => {
    expect(loadConfig({ DELIVERY_WORKERS: '2' }).delivery.workers).toBe(2);
    expect(() => loadConfig({ DELIVERY_RETRY_SCHEDULE: 'never' })).toThrow(ConfigError);
  });
});

describe('parseEmailSettings', () => {
  it('takes an smtp:// or smtps:// relay, a sender and the public address, without a trailing slash', () => {
    expect(
      parseEmailSettings({
        SMTP_URL: 'smtps://user:secret@mail.example.com:465',
        EMAIL_FROM: 'Acme <no-reply@acme.example>',
        PUBLIC_URL: 'https://brand.acme.example/',
      }),
    ).toEqual({
      smtpUrl: 'smtps://user:secret@mail.example.com:465',
      from: 'Acme <no-reply@acme.example>',
      publicUrl: 'https://brand.acme.example',
    });
  });

  it('refuses a relay URL of another scheme without repeating it: it may hold a password', () => {
    const error = configError(() => parseEmailSettings({ SMTP_URL: 'http://user:hunter2@mail.example.com' }));
    expect(error.message).toMatch(/^SMTP_URL must be smtp:/);
    expect(error.message).not.toContain('hunter2');
  });

  it.each([
    ['EMAIL_FROM', 'not an address', /^EMAIL_FROM must be an address/],
    ['PUBLIC_URL', 'brand.example.com', /^PUBLIC_URL must be an http\(s\) URL/],
    ['SMTP_URL', 'smtp://', /^SMTP_URL must name the relay's host/],
    ['PUBLIC_URL', 'https://brand.example.com/?a=1', /^PUBLIC_URL must not have a query or fragment/],
    ['PUBLIC_URL', 'https://brand.example.com/#top', /^PUBLIC_URL must not have a query or fragment/],
  ])('refuses %s=%s, saying what it must be', (variable, value, message) => {
    expect(configError(() => parseEmailSettings({ [variable]: value })).message).toMatch(message);
  });

  it('refuses a PUBLIC_URL with a user or password without repeating it', () => {
    const error = configError(() =>
      parseEmailSettings({ PUBLIC_URL: 'https://ada:hunter2@brand.example.com' }),
    );
    expect(error.message).toBe('PUBLIC_URL must not hold a user or password: links would show them');
  });
});

describe('parseOperationsSettings', () => {
  it('limits reads to 6000 a minute per credential, with open metrics and no Redis, when nothing is set', () => {
    expect(parseOperationsSettings({})).toEqual(DEFAULT_OPERATIONS);
  });

  it.each([
    ['100/1s', { points: 100, windowMs: 1000 }],
    ['10000/1h', { points: 10_000, windowMs: 3_600_000 }],
    ['50/1500ms', { points: 50, windowMs: 1500 }],
    ['off', undefined],
  ])('reads RATE_LIMIT_READS=%s', (value, limit) => {
    expect(parseOperationsSettings({ RATE_LIMIT_READS: value }).readRateLimit).toEqual(limit);
  });

  it.each(['6000', '6000/60', '0/60s', '10/500ms', '10/2d', '-1/60s', 'lots/60s'])(
    'refuses RATE_LIMIT_READS=%s, saying what it must be',
    (value) => {
      expect(configError(() => parseOperationsSettings({ RATE_LIMIT_READS: value })).message).toBe(
        `RATE_LIMIT_READS must be requests per window (1 s to 24 h), as 6000/60s, or off; got "${value}"`,
      );
    },
  );

  it('takes a METRICS_TOKEN of 16 characters or more, and a redis:// URL', () => {
    expect(
      parseOperationsSettings({ METRICS_TOKEN: 'a'.repeat(16), REDIS_URL: 'redis://127.0.0.1:6379/2' }),
    ).toMatchObject({ metricsToken: 'a'.repeat(16), redisUrl: 'redis://127.0.0.1:6379/2' });
  });

  it('counts for /metrics unless METRICS=off', () => {
    expect(parseOperationsSettings({ METRICS: 'on' }).metrics).toBe(true);
    expect(parseOperationsSettings({ METRICS: 'off' }).metrics).toBe(false);
    expect(configError(() => parseOperationsSettings({ METRICS: 'no' })).message).toBe(
      'METRICS must be on or off',
    );
  });

  it.each([
    'short',
    'with a space in it here',
    'tökén-with-umlauts-0123',
    'token=in-the-middle-0123',
    'tab\tseparated-token-0123',
  ])(
    'refuses METRICS_TOKEN=%s: a bearer token is visible ASCII (token68), or no scraper can send it',
    (value) => {
      const message = configError(() => parseOperationsSettings({ METRICS_TOKEN: value })).message;
      expect(message).toMatch(
        /^METRICS_TOKEN must be at least 16 characters of letters, digits and - \. _ ~ \+ \//,
      );
      expect(message).not.toContain(value);
    },
  );

  it('takes a METRICS_TOKEN in base64 as well as hex', () => {
    const token = 'q4Xr+9/Zk1mN0pQ2sT7v.w_y~z-A==';
    expect(parseOperationsSettings({ METRICS_TOKEN: token }).metricsToken).toBe(token);
  });

  it('refuses a REDIS_URL of another scheme without repeating it: it may hold a password', () => {
    const error = configError(() => parseOperationsSettings({ REDIS_URL: 'http://:hunter2@cache:6379' }));
    expect(error.message).toBe('REDIS_URL must be a redis:// or rediss:// URL, as redis://127.0.0.1:6379');
  });
});

describe('localBaseUrl', () => {
  it.each([
    ['127.0.0.1', 'http://127.0.0.1:8787'],
    ['brand.internal', 'http://brand.internal:8787'],
    ['::1', 'http://[::1]:8787'],
    ['0.0.0.0', 'http://127.0.0.1:8787'],
    ['::', 'http://127.0.0.1:8787'],
  ])('reaches a server listening on %s at %s', (host, url) => {
    expect(localBaseUrl(host, 8787)).toBe(url);
  });
});

describe('relayAddress', () => {
  it.each([
    ['smtp://user:secret@mail.example.com:2525', 'smtp://mail.example.com:2525'],
    ['smtp://mail.example.com', 'smtp://mail.example.com:587'],
    ['smtps://user:secret@mail.example.com', 'smtps://mail.example.com:465'],
  ])('shows %s as %s, without the user or password', (url, shown) => {
    expect(relayAddress(url)).toBe(shown);
  });
});

describe('metricsWarnings', () => {
  it('warns that METRICS_TOKEN does nothing with METRICS=off, and of nothing otherwise', () => {
    const token = 'a'.repeat(24);
    expect(metricsWarnings(loadConfig({ METRICS: 'off', METRICS_TOKEN: token }))).toEqual([
      'METRICS_TOKEN is set but METRICS=off: there is no /metrics for it to guard; unset one of them',
    ]);
    expect(metricsWarnings(loadConfig({ METRICS_TOKEN: token }))).toEqual([]);
    expect(metricsWarnings(loadConfig({ METRICS: 'off' }))).toEqual([]);
  });
});

describe('readLimitWarnings', () => {
  it('warns that REDIS_URL does nothing with RATE_LIMIT_READS=off, and of nothing otherwise', () => {
    const redis = 'redis://127.0.0.1:6379';
    expect(readLimitWarnings(loadConfig({ RATE_LIMIT_READS: 'off', REDIS_URL: redis }))).toEqual([
      'REDIS_URL is set but RATE_LIMIT_READS=off: nothing is counted, so Redis is not used; unset one of them',
    ]);
    expect(readLimitWarnings(loadConfig({ REDIS_URL: redis }))).toEqual([]);
    expect(readLimitWarnings(loadConfig({ RATE_LIMIT_READS: 'off' }))).toEqual([]);
  });
});

describe('emailWarnings', () => {
  const LISTEN = 'http://127.0.0.1:8787';
  const RELAY = 'smtp://mail.example.com:587';

  it('warns of nothing in development, or with a relay, a sender and the public address set', () => {
    expect(emailWarnings(loadConfig({}), LISTEN)).toEqual([]);
    const production = loadConfig({
      SMTP_URL: RELAY,
      EMAIL_FROM: 'Acme <no-reply@acme.example>',
      PUBLIC_URL: 'https://brand.acme.example',
      HOST: '0.0.0.0',
    });
    expect(emailWarnings(production, LISTEN)).toEqual([]);
  });

  it('warns that email would go out from the default sender, with links to the listen address', () => {
    expect(emailWarnings(loadConfig({ SMTP_URL: RELAY }), LISTEN)).toEqual([
      expect.stringMatching(
        /^EMAIL_FROM is not set: account email goes out from .*no-reply@brand-context\.localhost/,
      ),
      expect.stringMatching(
        /^PUBLIC_URL is not set: links in account email point at http:\/\/127\.0\.0\.1:8787,/,
      ),
    ]);
  });

  it.each(['0.0.0.0', '::'])('warns that links point at the loopback when HOST is %s', (host) => {
    expect(emailWarnings(loadConfig({ HOST: host }), LISTEN)).toEqual([
      expect.stringMatching(/^PUBLIC_URL is not set: .* which only this machine reaches/),
    ]);
  });
});
