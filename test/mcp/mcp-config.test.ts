import { afterAll, describe, expect, it } from 'vitest';
import { killAllChildren, runCli } from '../cli/cli-process.js';
import { mcpEnv } from './mcp-harness.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c3JfdGVzdCJ9.bm90LWEtcmVhbC1zaWduYXR1cmUtYnV0LWxvbmc';
const BRAND_KEY = `brk_${'a'.repeat(36)}`;

/** The rules themselves are unit-tested in src/mcp/config.test.ts; this is how the command reports them. */
function mcp(env: Record<string, string>) {
  // Empty stdin: a server that starts sees its client leave at once and exits.
  return runCli(['mcp'], { env: mcpEnv(env), input: '' });
}

describe('brand-context mcp: configuration', () => {
  afterAll(killAllChildren);

  it('exits 1 with one line on stderr when neither a token nor a key is set', async () => {
    const result = await mcp({});
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: Set BRAND_CONTEXT_ACCESS_TOKEN .* or BRAND_READ_KEY .*\n$/);
  });

  it('exits 1 without quoting the key when the access token is a brand read key', async () => {
    const result = await mcp({ BRAND_CONTEXT_ACCESS_TOKEN: BRAND_KEY });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: BRAND_CONTEXT_ACCESS_TOKEN holds a brand read key .*\n$/);
    expect(result.stderr).not.toContain(BRAND_KEY);
  });

  it('exits 1 with one line on stderr for a malformed URL', async () => {
    const result = await mcp({ BRAND_CONTEXT_URL: 'localhost:8787', BRAND_CONTEXT_ACCESS_TOKEN: JWT });
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(result.stderr).toMatch(/^error: BRAND_CONTEXT_URL must be an http:\/\/ or https:\/\/ URL.*\n$/);
  });

  it('starts with a good configuration, and exits 0 without a word on stdout when its client closes stdin', async () => {
    const result = await mcp({ BRAND_CONTEXT_URL: 'http://127.0.0.1:1/', BRAND_CONTEXT_ACCESS_TOKEN: JWT });
    expect(result).toMatchObject({ code: 0, stdout: '' });
    expect(result.stderr).toContain('serving on stdio for http://127.0.0.1:1 ');
    expect(result.stderr).not.toContain(JWT);
  });
});
