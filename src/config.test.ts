import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseAuthSettings, parseDatabaseUrl, parseTrustProxy } from './config.js';

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
