import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../support/app.js';
import { sqliteBackend, type TestDatabase } from '../support/databases.js';

/** Every `src` and `href` of the page, resolved against the page's own URL. */
function referencesOf(html: string, pageUrl: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map(
    ([, reference = '']) => new URL(reference, `http://service.test${pageUrl}`).href,
  );
}

describe('The API reference at /docs', () => {
  let database: TestDatabase;
  let testApp: TestApp;

  beforeAll(async () => {
    database = await sqliteBackend.create();
    testApp = await startTestApp(database);
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  const get = (url: string) => testApp.app.inject({ method: 'GET', url });

  it('serves an HTML page under a Content-Security-Policy that allows no inline script and no framing', async () => {
    const response = await get('/docs');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('<title>Brand Context API</title>');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
  });

  it('serves every script, stylesheet and icon the page names from this service, none from elsewhere', async () => {
    for (const pageUrl of ['/docs', '/docs/']) {
      const page = await get(pageUrl);
      const references = referencesOf(page.body, pageUrl);
      expect(references.length, pageUrl).toBeGreaterThanOrEqual(5);
      for (const reference of references) {
        const url = new URL(reference);
        expect(url.origin, reference).toBe('http://service.test');
        const asset = await get(url.pathname);
        expect(asset.statusCode, url.pathname).toBe(200);
        const type = String(asset.headers['content-type']);
        if (url.pathname.endsWith('.js')) expect(type, url.pathname).toMatch(/^application\/javascript/);
        if (url.pathname.endsWith('.css')) expect(type, url.pathname).toMatch(/^text\/css/);
        if (url.pathname.endsWith('.png')) expect(type, url.pathname).toBe('image/png');
        expect(asset.headers['content-security-policy'], url.pathname).toBe(
          page.headers['content-security-policy'],
        );
      }
    }
  });

  it('shows the same document as GET /openapi.json, and names no other host for it to load', async () => {
    const initializer = await get('/docs/static/swagger-initializer.js');
    expect(initializer.statusCode).toBe(200);
    expect(initializer.body).toContain("resolveUrl('./json')");
    // No string in it names another host (a comment links to Stack Overflow).
    expect(initializer.body).not.toMatch(/["'`]https?:\/\//);
    const shown = await get('/docs/json');
    expect(shown.statusCode).toBe(200);
    expect(shown.json()).toEqual((await get('/openapi.json')).json());
  });
});
