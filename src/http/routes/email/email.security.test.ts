import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { KEY_FORMATS } from '../../../core/secret-keys.js';
import { KEY_SERVICES } from '../../../services/keys/keys.js';
import { OPERATOR } from '../../../services/audit/audit.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { consoleAccount, consoleSessionApi } from '#test/support/fixtures/auth.js';
import {
  EMAIL_MESSAGES_URL,
  emailApi,
  emailKeys,
  emailKeyWithSender,
  emailMessagesUrl,
  message,
  sendEmail,
} from '#test/support/fixtures/email.js';
import {
  call,
  callEach,
  type Fixture,
  outcome,
  problemOf,
  refused,
  type RouteCall,
  unchanged,
  useFixture,
} from '#test/support/http-fixture.js';
import { mistype } from '#test/support/mistype.js';

/** Every /email/v1 route, the message to read being `messageId`. */
function emailRoutes(messageId: string): RouteCall[] {
  return [
    { method: 'POST', url: EMAIL_MESSAGES_URL, body: message() },
    { method: 'GET', url: EMAIL_MESSAGES_URL },
    { method: 'GET', url: `${EMAIL_MESSAGES_URL}/${messageId}` },
  ];
}

/** Calls every /email/v1 route with `authorization` as the header sent (none when undefined); nothing may change. */
async function everyRoute(
  f: Fixture,
  messageId: string,
  headers: Record<string, string>,
): Promise<LightMyRequestResponse[]> {
  return unchanged(f, async () => {
    const responses: LightMyRequestResponse[] = [];
    for (const route of emailRoutes(messageId)) {
      responses.push(
        await f.app.inject({
          method: route.method,
          url: route.url,
          headers: { 'content-type': 'application/json', ...headers },
          ...(route.body === undefined ? {} : { payload: JSON.stringify(route.body) }),
        }),
      );
    }
    return responses;
  });
}

describeEachBackend('Transactional email API: security', (backend) => {
  const fixture = useFixture(backend, { extend: emailKeys });

  describe('credentials', () => {
    it('answers 401 email_key_missing on every route without an Authorization header', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey);
      const responses = await everyRoute(f, id, {});
      expect(responses.map(outcome)).toEqual(Array(3).fill('401 email_key_missing'));
    });

    it('refuses every credential but a transactional email key, on every route, and changes nothing', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey);
      const refusals: [string, string, RegExp][] = [
        [f.brandKey, '401 email_key_invalid', /brand read key \(brk_/],
        [f.apiKey, '401 email_key_invalid', /workspace API key \(wsk_/],
        [f.owner.token, '401 email_key_invalid', /^Access tokens cannot send email/],
        [KEY_FORMATS.email.generate(), '401 email_key_invalid', /not known/],
        [mistype(f.emailKey), '401 email_key_invalid', /malformed/],
        ['not-a-key', '401 email_key_invalid', /malformed/],
      ];
      for (const [credential, expected, detail] of refusals) {
        const responses = await everyRoute(f, id, { authorization: `Bearer ${credential}` });
        expect(responses.map(outcome), expected).toEqual(Array(3).fill(expected));
        for (const response of responses) {
          expect(problemOf(response).detail).toMatch(detail);
          expect(response.body).not.toContain(credential.slice(4, 34));
          expect(response.body).not.toContain('Your receipt');
        }
      }
    });

    it('refuses the key in another scheme than Bearer with 401 email_key_invalid', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey);
      for (const authorization of [`Basic ${f.emailKey}`, f.emailKey, 'Bearer']) {
        const responses = await everyRoute(f, id, { authorization });
        expect(responses.map(outcome), authorization.slice(0, 6)).toEqual(
          Array(3).fill('401 email_key_invalid'),
        );
      }
    });

    it('refuses a revoked key with 401 email_key_revoked on the very next request', async () => {
      const f = fixture();
      const { key, id: keyId } = await emailKeyWithSender(f, f.workspaceId);
      const { id } = await sendEmail(f, key);
      await KEY_SERVICES.email.revoke(f.deps, OPERATOR, f.workspaceId, keyId);
      const responses = await everyRoute(f, id, { authorization: `Bearer ${key}` });
      expect(responses.map(outcome)).toEqual(Array(3).fill('401 email_key_revoked'));
      const prefix = key.slice(0, 'tek_'.length + 4);
      for (const response of responses)
        expect(problemOf(response).detail).toBe(`The transactional email key ${prefix}… was revoked.`);
    });

    it('refuses a key given an expiry once it has passed, with 401 email_key_expired', async () => {
      const f = fixture();
      const { key } = await emailKeyWithSender(f, f.workspaceId, 'acme.example', { expiresInDays: 1 });
      const { id } = await sendEmail(f, key);
      f.clock.advance(DAY_MS);
      const responses = await everyRoute(f, id, { authorization: `Bearer ${key}` });
      expect(responses.map(outcome)).toEqual(Array(3).fill('401 email_key_expired'));
    });

    it('checks the key before it reads the body: a caller without one learns nothing of the body rules', async () => {
      const f = fixture();
      const responses = await unchanged(f, async () => [
        await emailApi(f, undefined).send(undefined, { rawBody: '{' }),
        await emailApi(f, f.brandKey).send({ to: 42 }),
        await emailApi(f, undefined).send(undefined, { rawBody: 'x'.repeat(6 * 1024 * 1024) }),
      ]);
      expect(responses.map(outcome)).toEqual([
        '401 email_key_missing',
        '401 email_key_invalid',
        '401 email_key_missing',
      ]);
    });
  });

  describe('the console session', () => {
    const withConsole = useFixture(backend, { extend: consoleAccount });
    const { session } = consoleSessionApi(withConsole);

    it("refuses the console's session cookie: 401 email_key_missing, even with the CSRF token", async () => {
      const f = withConsole();
      const { cookie, csrf } = await session();
      const { key } = await emailKeyWithSender(f, f.workspaceId);
      const { id } = await sendEmail(f, key);
      const responses = await everyRoute(f, id, { cookie, 'x-csrf-token': csrf });
      expect(responses.map(outcome)).toEqual(Array(3).fill('401 email_key_missing'));
    });
  });

  describe('other surfaces', () => {
    it('refuses a transactional email key on the management API with 403 email_key_not_allowed, the message log included', async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey);
      const ws = `/api/v1/workspaces/${f.workspaceId}`;
      const responses = await unchanged(f, () =>
        callEach(f, f.emailKey, [
          { method: 'GET', url: '/api/v1/workspaces' },
          { method: 'GET', url: `${ws}/brand` },
          { method: 'GET', url: `${ws}/campaigns` },
          { method: 'GET', url: `${ws}/email-keys` },
          { method: 'GET', url: emailMessagesUrl(f.workspaceId) },
          { method: 'GET', url: `${emailMessagesUrl(f.workspaceId)}/${id}` },
          { method: 'GET', url: `${emailMessagesUrl(f.workspaceId)}/${id}/content` },
          { method: 'POST', url: `${ws}/brand-keys`, body: { name: 'escalate' } },
        ]),
      );
      expect(responses.map(outcome)).toEqual(Array(8).fill('403 email_key_not_allowed'));
    });

    it('refuses a transactional email key on the read operation with 401 malformed_key', async () => {
      const f = fixture();
      await refused(
        f,
        () =>
          call(f, f.emailKey, 'POST', '/functions/v1/brand-agent', {
            body: { action: 'context', workspace_id: f.workspaceId },
          }),
        '401 malformed_key',
      );
    });
  });

  describe('workspace boundaries', () => {
    it("answers 404 to another workspace's key for this workspace's message, and never lists it", async () => {
      const f = fixture();
      const { id } = await sendEmail(f, f.emailKey, message({ subject: 'Private to Acme' }));
      const theirs = emailApi(f, f.otherEmailKey);

      const read = await theirs.get(id);
      expect(outcome(read)).toBe('404 email_message_not_found');
      expect(read.body).not.toContain('Private to Acme');
      const listing = await theirs.list('?limit=100');
      expect(listing.statusCode).toBe(200);
      expect(listing.body).not.toContain(id);
      expect(listing.body).not.toContain('Private to Acme');
    });

    it('sends only as its own workspace: another workspace’s sender is refused, whatever workspace_id the body names', async () => {
      const f = fixture();
      await refused(
        f,
        () => emailApi(f, f.otherEmailKey).send(message({ workspace_id: f.workspaceId })),
        '400 invalid_request',
      );
      await refused(f, () => emailApi(f, f.otherEmailKey).send(message()), '422 sender_not_allowed');
    });
  });

  describe('header injection', () => {
    for (const [where, fields] of [
      ['the subject', { subject: 'Receipt\r\nBcc: victim@example.com' }],
      ['a display name', { to: 'Ada\r\nBcc: victim@example.com <ada@example.com>' }],
      ['the From display name', { from: 'Acme\nBcc: victim@example.com <hello@acme.example>' }],
      ['a reply_to display name', { reply_to: 'Support\r\nX-Evil: 1 <help@acme.example>' }],
      ['an X- header value', { headers: { 'X-Order': '1\r\nBcc: victim@example.com' } }],
      ['a header name', { headers: { 'X-Order\r\nBcc': 'victim@example.com' } }],
      ['a tag value', { tags: { order: '1\nBcc: victim@example.com' } }],
    ] as const) {
      it(`refuses a line break in ${where} with 400 saying so, and queues nothing`, async () => {
        const f = fixture();
        const response = await refused(
          f,
          () => emailApi(f, f.emailKey).send(message(fields)),
          '400 invalid_request',
        );
        expect(problemOf(response).detail).toMatch(
          where === 'a header name' ? /X- header name/ : /line breaks/,
        );
      });
    }
  });

  describe('sender spoofing', () => {
    for (const [why, fields, field] of [
      [
        'a From display name that is another address',
        { from: '"ceo@evil.test" <hello@acme.example>' },
        'from',
      ],
      [
        'an unquoted From display name that is another address',
        { from: 'ceo@evil.test <hello@acme.example>' },
        'from',
      ],
      [
        'a From display name with a full-width at sign',
        { from: '"ceo\uff20evil.test" <hello@acme.example>' },
        'from',
      ],
      [
        'a From display name with full-width angle brackets',
        { from: 'Acme \uff1cceo\uff20evil.test\uff1e <hello@acme.example>' },
        'from',
      ],
      [
        'a reply_to display name that is another address',
        { reply_to: ['help@acme.example', '"ceo@evil.test" <help@acme.example>'] },
        'reply_to',
      ],
    ] as const) {
      it(`refuses ${why} with 422 sender_misleading naming ${field}, and queues nothing`, async () => {
        const f = fixture();
        const response = await refused(
          f,
          () => emailApi(f, f.emailKey).send(message(fields)),
          '422 sender_misleading',
        );
        const problem = problemOf(response);
        expect(problem.detail).toMatch(new RegExp(`^The display name of ${field} \\(".+"\\) `));
        expect(problem.detail).toContain('address');
        expect(problem.resolution).toContain('no @, < or >');
      });
    }

    for (const from of [
      'hello%evil.test@acme.example',
      'evil.test!hello@acme.example',
      'Acme <a!b%c@acme.example>',
    ]) {
      it(`refuses the source-routed local part of ${from} with 422 sender_misleading, and queues nothing`, async () => {
        const f = fixture();
        const response = await refused(
          f,
          () => emailApi(f, f.emailKey).send(message({ from })),
          '422 sender_misleading',
        );
        expect(problemOf(response).detail).toMatch(/has % or ! before its @/);
      });
    }

    it('still takes a display name with commas, parentheses and an ampersand, and recipients named by address', async () => {
      const f = fixture();
      const response = await emailApi(f, f.emailKey).send(
        message({
          from: '"Acme Coffee & Tea, (Orders)" <hello@acme.example>',
          to: '"ada@example.com" <ada@example.com>',
          reply_to: 'Support <help@acme.example>',
        }),
      );
      expect(response.statusCode).toBe(202);
    });
  });

  describe('secrets', () => {
    it('stores no transactional email key and no message body in plaintext', async () => {
      const f = fixture();
      const { key } = await emailKeyWithSender(f, f.workspaceId);
      const html = '<p>Reset your password: https://acme.example/reset#s3cr3t-link-token</p>';
      const text = 'Reset your password: https://acme.example/reset#s3cr3t-link-token';
      await sendEmail(f, key, message({ html, text }));

      const dump = JSON.stringify(await snapshotTables(f.database.config));

      for (const secret of [key, f.emailKey, f.otherEmailKey])
        expect(dump).not.toContain(secret.slice(4, 34));
      expect(dump).not.toContain('s3cr3t-link-token');
      expect(dump).not.toContain('Reset your password');
    });

    it('writes no transactional email key and no message body to the logs', async () => {
      const f = fixture();
      await sendEmail(f, f.emailKey, message({ text: 'Your one-time code is 731-904' }));
      await emailApi(f, f.emailKey).get(f.emailKey);
      await emailApi(f, f.emailKey).list(`?cursor=${f.emailKey}`);
      await emailApi(f, f.emailKey).send(message({ subject: f.emailKey }), {
        headers: { 'idempotency-key': '' },
      });

      const text = f.logs.join('');

      expect(text).toContain('"status":202');
      expect(text).not.toContain(f.emailKey.slice(4, 34));
      expect(text).not.toContain('731-904');
    });
  });
});
