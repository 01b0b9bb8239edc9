import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { capturedEmail, emailMessagesUrl } from '#test/support/fixtures/email.js';
import { call, useFixture } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';

describeEachBackend('A captured email’s HTML body as a page: the happy paths', (backend) => {
  const fixture = useFixture(backend);

  it('answers the HTML body to owners and admins, its links opening in a new tab, under a policy that runs no script, loads nothing, opens links outside the sandbox and lets only the console frame it', async () => {
    const f = fixture();
    const html = '<p style="color: #6b4f3a">Welcome, <b>Ada</b></p>';
    const id = await capturedEmail(f, f.workspaceId, { html });
    const admin = await addUser(f, { workspaceId: f.workspaceId, role: 'admin' });

    for (const user of [f.owner, admin]) {
      const response = await call(
        f,
        user.token,
        'GET',
        `${emailMessagesUrl(f.workspaceId)}/${id}/content.html`,
      );
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(`<base target="_blank">${html}`);
      expect(response.headers).toMatchObject({
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy':
          "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; frame-ancestors 'self'",
        'x-frame-options': 'SAMEORIGIN',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
    }
  });

  it('answers the body as it was sent, character for character, its doctype still first: its style element, scripts and images are for the policy to stop', async () => {
    const f = fixture();
    const doctype = '<!DOCTYPE html>';
    const rest = [
      '<html><head><style>.total { font-weight: 700 }</style></head>',
      '<body><p class="total">Total: 12,50 € — merci, Zoë</p>',
      '<img src="https://tracker.example/open.gif" alt=""><script>alert(1)</script></body></html>',
    ].join('');
    const html = doctype + rest;
    const id = await capturedEmail(f, f.workspaceId, { html });
    const response = await call(
      f,
      f.owner.token,
      'GET',
      `${emailMessagesUrl(f.workspaceId)}/${id}/content.html`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.rawPayload.equals(Buffer.from(`${doctype}<base target="_blank">${rest}`, 'utf8'))).toBe(
      true,
    );
  });

  it('reads captured account email too, as …/content does', async () => {
    const f = fixture();
    const id = await capturedEmail(f, f.workspaceId, {
      source: 'account',
      html: '<a href="https://brand-context.example/invite#one-time-link">Accept</a>',
    });
    const response = await call(
      f,
      f.owner.token,
      'GET',
      `${emailMessagesUrl(f.workspaceId)}/${id}/content.html`,
    );
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('#one-time-link');
  });
});
