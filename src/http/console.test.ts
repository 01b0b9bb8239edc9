import { randomUUID } from 'node:crypto';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { useFixture } from '#test/support/http-fixture.js';

describeEachBackend('the console’s pages and assets', (backend) => {
  // A stand-in for the built console; it must exist before the app starts, so this hook comes first.
  const consoleDir = join(tmpdir(), `brand-context-console-${randomUUID()}`);
  beforeAll(async () => {
    await mkdir(join(consoleDir, 'assets'), { recursive: true });
    await writeFile(join(consoleDir, 'index.html'), '<!doctype html><title>Brand Context</title>');
    await writeFile(join(consoleDir, 'assets', 'app-1a2b3c.js'), 'export {};');
  });
  afterAll(() => rm(consoleDir, { recursive: true, force: true }));
  const fixture = useFixture(backend, { app: { consoleDir } });

  it.each([
    '/',
    '/sign-in',
    '/accept-invite?token=bci_x',
    '/reset-password',
    '/connect?response_type=code&client_id=oc_x&state=s',
    '/w/ws_x/settings/agent-access',
    '/account/tokens',
  ])('serves the console page %s with a strict Content-Security-Policy', async (url) => {
    const response = await fixture().app.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.body).toContain('<title>Brand Context</title>');
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
    expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(response.headers['content-security-policy']).not.toContain('unsafe');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cache-control']).toBe('no-cache');
  });

  it('caches the hashed console assets for good', async () => {
    const response = await fixture().app.inject({ method: 'GET', url: '/assets/app-1a2b3c.js' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('keeps unknown paths problem+json 404s, and the API free of console headers', async () => {
    const { app, brandKey, workspaceId } = fixture();
    for (const url of ['/nope', '/api/v1/nope', '/w']) {
      const response = await app.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    const read = await app.inject({
      method: 'POST',
      url: '/functions/v1/brand-agent',
      headers: { authorization: `Bearer ${brandKey}` },
      payload: { action: 'context', workspace_id: workspaceId },
    });
    expect(read.statusCode).toBe(200);
    expect(read.headers['content-security-policy']).toBeUndefined();
    expect(read.headers['set-cookie']).toBeUndefined();
  });
});
