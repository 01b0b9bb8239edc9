import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICE_URL, DEFAULT_TIMEOUT_MS, loadMcpConfig, McpConfigError } from './config.js';
import { BRAND_KEY as BRAND_KEYS, WORKSPACE_API_KEY } from '../core/secret-keys.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfdGVzdCJ9.bm90LWEtcmVhbC1zaWduYXR1cmUtYnV0LWxvbmc';
const BRAND_KEY = BRAND_KEYS.generate();
const API_KEY = WORKSPACE_API_KEY.generate();

describe('loadMcpConfig', () => {
  it('defaults the URL and the timeout, and treats empty variables as unset', () => {
    expect(
      loadMcpConfig({
        BRAND_CONTEXT_ACCESS_TOKEN: JWT,
        BRAND_CONTEXT_URL: '',
        BRAND_READ_KEY: '',
        BRAND_CONTEXT_WORKSPACE_ID: ' ',
      }),
    ).toEqual({
      serviceUrl: DEFAULT_SERVICE_URL,
      accessToken: JWT,
      brandReadKey: undefined,
      workspaceId: undefined,
      timeoutMs: DEFAULT_TIMEOUT_MS,
    });
  });

  it('reads how often to watch the brand for new versions', () => {
    expect(loadMcpConfig({ BRAND_CONTEXT_ACCESS_TOKEN: JWT, BRAND_CONTEXT_WATCH_MS: '500' }).watchMs).toBe(
      500,
    );
  });

  it('keeps a path prefix of the URL without its trailing slash', () => {
    const config = loadMcpConfig({
      BRAND_CONTEXT_URL: 'https://tools.example.com/brand/',
      BRAND_CONTEXT_ACCESS_TOKEN: JWT,
    });
    expect(config.serviceUrl).toBe('https://tools.example.com/brand');
  });

  it('accepts keys alone when a workspace is named', () => {
    expect(
      loadMcpConfig({
        BRAND_READ_KEY: BRAND_KEY,
        BRAND_CONTEXT_ACCESS_TOKEN: API_KEY,
        BRAND_CONTEXT_WORKSPACE_ID: 'ws_a',
      }),
    ).toMatchObject({ brandReadKey: BRAND_KEY, accessToken: API_KEY, workspaceId: 'ws_a' });
  });

  const token = { BRAND_CONTEXT_ACCESS_TOKEN: JWT };
  it.each([
    ['neither a token nor a key is set', {}, /^Set BRAND_CONTEXT_ACCESS_TOKEN .* or BRAND_READ_KEY/],
    [
      'the URL has no scheme',
      { ...token, BRAND_CONTEXT_URL: 'localhost:8787' },
      /must be an http:\/\/ or https:\/\/ URL/,
    ],
    [
      'the URL is not a URL',
      { ...token, BRAND_CONTEXT_URL: 'http://' },
      /^BRAND_CONTEXT_URL is not a valid URL/,
    ],
    [
      'the URL carries credentials',
      { ...token, BRAND_CONTEXT_URL: 'http://me:secret@h:8787' },
      /must not contain credentials/,
    ],
    [
      'the URL has a query',
      { ...token, BRAND_CONTEXT_URL: 'http://h:8787/?x=1' },
      /without query or fragment/,
    ],
    [
      'the access token is a brand read key',
      { BRAND_CONTEXT_ACCESS_TOKEN: BRAND_KEY },
      /holds a brand read key/,
    ],
    [
      'the access token is no token',
      { BRAND_CONTEXT_ACCESS_TOKEN: 'my password' },
      /is neither a user access token/,
    ],
    [
      'the brand read key is malformed',
      { ...token, BRAND_READ_KEY: 'brk_short' },
      /^BRAND_READ_KEY is not a brand read key/,
    ],
    [
      'the brand read key has a typo (its checksum fails)',
      { ...token, BRAND_READ_KEY: `${BRAND_KEY.slice(0, -1)}${BRAND_KEY.endsWith('x') ? 'y' : 'x'}` },
      /^BRAND_READ_KEY is not a brand read key/,
    ],
    ['the brand read key is alone', { BRAND_READ_KEY: BRAND_KEY }, /^Set BRAND_CONTEXT_WORKSPACE_ID/],
    [
      'the workspace API key is alone',
      { BRAND_CONTEXT_ACCESS_TOKEN: API_KEY },
      /^Set BRAND_CONTEXT_WORKSPACE_ID/,
    ],
    [
      'the workspace id is not an id',
      { ...token, BRAND_CONTEXT_WORKSPACE_ID: 'ws a' },
      /BRAND_CONTEXT_WORKSPACE_ID is not/,
    ],
    [
      'the timeout is not a number',
      { ...token, BRAND_CONTEXT_TIMEOUT_MS: '15s' },
      /^BRAND_CONTEXT_TIMEOUT_MS must be/,
    ],
    ['the timeout is zero', { ...token, BRAND_CONTEXT_TIMEOUT_MS: '0' }, /^BRAND_CONTEXT_TIMEOUT_MS must be/],
    [
      'the watch interval is not a number',
      { ...token, BRAND_CONTEXT_WATCH_MS: '30s' },
      /^BRAND_CONTEXT_WATCH_MS must be/,
    ],
    [
      'the watch interval is too short',
      { ...token, BRAND_CONTEXT_WATCH_MS: '10' },
      /^BRAND_CONTEXT_WATCH_MS must be/,
    ],
  ])('refuses a configuration where %s, quoting no secret', (_case, env: Record<string, string>, message) => {
    let thrown: unknown;
    try {
      loadMcpConfig(env);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(McpConfigError);
    const text = (thrown as Error).message;
    expect(text).toMatch(message);
    for (const secret of [JWT, BRAND_KEY, API_KEY, 'secret', 'my password'])
      expect(text).not.toContain(secret);
  });
});
