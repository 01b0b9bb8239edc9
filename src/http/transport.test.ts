import { describe, expect, it } from 'vitest';
import { ConfigError, parseHttpTimeouts } from '../config.js';
import { loggableUrl } from './transport.js';

describe('loggableUrl', () => {
  it('masks a key in the URL before cutting it to 200 characters', () => {
    const key = `brk_${'A1'.repeat(18)}`;
    const logged = loggableUrl(`/functions/v1/${key}/${'x'.repeat(500)}`);
    expect(logged).not.toContain(key.slice(4, 20));
    expect(logged.startsWith('/functions/v1/brk_[REDACTED]/')).toBe(true);
    expect(logged).toHaveLength(201);
    expect(logged.endsWith('…')).toBe(true);
  });

  it('leaves a short URL as it is', () => {
    expect(loggableUrl('/healthz?probe=1')).toBe('/healthz?probe=1');
  });
});

describe('parseHttpTimeouts', () => {
  it('keeps the defaults for unset or empty variables', () => {
    expect(parseHttpTimeouts({})).toEqual({});
    expect(parseHttpTimeouts({ HTTP_REQUEST_TIMEOUT: '' })).toEqual({});
  });

  it('reads HTTP_HEADERS_TIMEOUT, HTTP_REQUEST_TIMEOUT and HTTP_KEEP_ALIVE_TIMEOUT in seconds', () => {
    expect(
      parseHttpTimeouts({
        HTTP_HEADERS_TIMEOUT: '5',
        HTTP_REQUEST_TIMEOUT: '120',
        HTTP_KEEP_ALIVE_TIMEOUT: '650',
      }),
    ).toEqual({ headersMs: 5_000, requestMs: 120_000, keepAliveMs: 650_000 });
  });

  it('refuses values that are not 1-3600 whole seconds', () => {
    for (const value of ['0', '3601', '1.5', '10s', '-1']) {
      expect(() => parseHttpTimeouts({ HTTP_KEEP_ALIVE_TIMEOUT: value })).toThrow(
        new ConfigError(`HTTP_KEEP_ALIVE_TIMEOUT must be 1-3600 seconds, got "${value}"`),
      );
    }
  });

  it('refuses a headers timeout longer than the request timeout, defaults included', () => {
    expect(() => parseHttpTimeouts({ HTTP_HEADERS_TIMEOUT: '60' })).toThrow(
      'HTTP_HEADERS_TIMEOUT (60 s) must not exceed HTTP_REQUEST_TIMEOUT (30 s)',
    );
    expect(() => parseHttpTimeouts({ HTTP_REQUEST_TIMEOUT: '5' })).toThrow(
      'HTTP_HEADERS_TIMEOUT (10 s) must not exceed HTTP_REQUEST_TIMEOUT (5 s)',
    );
  });
});
