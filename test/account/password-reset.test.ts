import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { IssuedSession } from '../../src/contract/session.js';
import { DEFAULT_ACCOUNT_LINK_LIMITS } from '../../src/services/accounts/account-email.js';
import { startTestApp } from '#test/support/app.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '#test/support/databases.js';
import {
  answerReset,
  confirmReset,
  emailsTo,
  expectLinkKeptSecret,
  lastTokenTo,
  later,
  linkIn,
  NEW_PASSWORD,
  requestReset,
  useAccountEmailFixture,
} from '#test/support/fixtures/account-email.js';
import { cookieHeader, expectRateLimited, freshIp, PASSWORD } from '#test/support/fixtures/auth.js';
import { signIn } from '#test/support/fixtures/members.js';
import { call, type Fixture, outcome, problemOf, refused, unchanged } from '#test/support/http-fixture.js';
import { addUser } from '#test/support/users.js';

const HOUR_MS = 60 * 60 * 1000;
const ACCEPTED = {
  message:
    'If an account has this email address, a link to choose a new password is on its way. It works once, for an hour.',
};

let counter = 0;
/** A new account with a password, in no workspace. */
async function account(f: Fixture): Promise<string> {
  const email = `reset${String(++counter)}@reset.example`;
  await addUser(f, { email, password: PASSWORD });
  return email;
}

/** Asks for a reset link for `email` and returns its token. */
async function resetToken(f: Fixture, email: string): Promise<string> {
  expect(outcome(await requestReset(f, { email }))).toBe('202');
  return lastTokenTo(f, email);
}

/**
 * Holds the account links' table from another connection, as another process's long transaction would:
 * SQLite's write lock, or an exclusive lock on PostgreSQL's table. Returns the release.
 */
async function lockLinkTables(database: TestDatabase): Promise<() => Promise<void>> {
  const { config } = database;
  if (config.kind === 'sqlite') {
    const other = new BetterSqlite3(config.path);
    other.exec('begin immediate');
    return () => {
      other.exec('rollback');
      other.close();
      return Promise.resolve();
    };
  }
  const other = new pg.Client({ connectionString: config.url });
  await other.connect();
  await other.query('begin');
  await other.query('lock table account_tokens in access exclusive mode');
  return async () => {
    await other.query('rollback');
    await other.end();
  };
}

/** The email tables and the account links: what asking for a reset may write. */
async function mailTables(f: Fixture) {
  const tables = await snapshotTables(f.database.config);
  return [tables.email_messages, tables.email_recipients, tables.email_events, tables.account_tokens];
}

describeEachBackend('Password resets', (backend) => {
  const fixture = useAccountEmailFixture(backend);

  describe('asking for a link', () => {
    it('answers 202 and emails the account a link valid for an hour, from no workspace', async () => {
      const f = fixture();
      const email = await account(f);
      const response = await requestReset(f, { email: ` ${email.toUpperCase()} ` });
      expect(response.statusCode).toBe(202);
      expect(response.json()).toEqual(ACCEPTED);
      const [message, ...more] = await emailsTo(f, email);
      expect(more).toEqual([]);
      expect(message).toMatchObject({
        workspaceId: null,
        source: 'account',
        subject: 'Reset your Brand Context password',
        recipients: [email],
      });
      expect(message?.text).toContain(`reset the password of ${email}`);
      expect(message?.text).toContain('until 20 November 2026 at 11:00 UTC');
      expect(linkIn(message).url).toMatch(
        /^https:\/\/brand\.test\/reset-password\?token=bcr_[A-Za-z0-9_-]{43}$/,
      );
    });

    it('answers an unknown address the same 202 and queues nothing', async () => {
      const f = fixture();
      const known = await requestReset(f, { email: await account(f) });
      const before = await mailTables(f);
      const unknown = await requestReset(f, { email: 'nobody@reset.example' });
      expect(await mailTables(f)).toEqual(before);
      expect(unknown.statusCode).toBe(known.statusCode);
      expect(unknown.json()).toEqual(known.json());
      expect(unknown.headers['content-type']).toBe(known.headers['content-type']);
    });

    it("answers before it looks for the account: 202 while the links' table is locked; the link that then fails is logged with the request's id, and does not count toward the limit per address", async () => {
      const f = fixture();
      const email = await account(f);
      const unlock = await lockLinkTables(f.database);
      let answer;
      try {
        answer = await answerReset(f, { email });
        expect(outcome(answer)).toBe('202');
        expect(answer.json()).toEqual(ACCEPTED);
        // The link waits for the lock, until the database gives up (busy_timeout, statement_timeout).
        await f.app.services.accountLinks.settled();
      } finally {
        await unlock();
      }
      expect(await emailsTo(f, email)).toEqual([]);
      const failure = f.logs.filter((line) => line.includes('failed after its answer'));
      expect(failure).toHaveLength(1);
      expect(failure[0]).toContain(`"request_id":"${String(answer.headers['x-request-id'])}"`);
      expect(failure[0]).toContain('no link was sent');

      const { resetPerEmail } = DEFAULT_ACCOUNT_LINK_LIMITS;
      for (let i = 0; i < resetPerEmail.attempts; i++) {
        expect(outcome(await requestReset(f, { email }))).toBe('202');
      }
      expect(await emailsTo(f, email)).toHaveLength(resetPerEmail.attempts);
      expect(outcome(await requestReset(f, { email }))).toBe('429 rate_limited');
    }, 30_000);

    // PostgreSQL: a link waits for the lock without holding up the process, as SQLite's busy wait does.
    it.runIf(backend.name === 'postgres')(
      'answers 503 with Retry-After, counting nothing, while more links wait to be made than the service keeps waiting',
      async () => {
        const f = fixture();
        const node = await startTestApp(f.database, { accountLinkLimits: { waitingResets: 1 } });
        const email = await account(f);
        const { resetPerEmail } = DEFAULT_ACCOUNT_LINK_LIMITS;
        try {
          const unlock = await lockLinkTables(f.database);
          try {
            expect(outcome(await answerReset(node, { email }))).toBe('202');
            const busy = await answerReset(node, { email });
            expect(outcome(busy)).toBe('503 service_unavailable');
            expect(busy.headers['retry-after']).toBe('5');
            expect(problemOf(busy).detail).toBe(
              'The database is unavailable: too many password reset requests are waiting for it.',
            );
          } finally {
            await unlock();
          }
          await node.app.services.accountLinks.settled();
          // The 202 counted, the 503 did not.
          for (let i = 1; i < resetPerEmail.attempts; i++) {
            expect(outcome(await requestReset(node, { email }))).toBe('202');
          }
          expect(outcome(await requestReset(node, { email }))).toBe('429 rate_limited');
          expect(await emailsTo(f, email)).toHaveLength(resetPerEmail.attempts);
        } finally {
          await node.close();
        }
      },
    );

    it('refuses what is no email address with 400 invalid_request, for any account alike', async () => {
      const f = fixture();
      for (const body of [{ email: 'not an address' }, {}, { email: 5 }]) {
        await refused(f, () => requestReset(f, body), '400 invalid_request');
      }
    });

    it('ends the links sent before when a new one is asked for: 400 link_invalid (replaced)', async () => {
      const f = fixture();
      const email = await account(f);
      const first = await resetToken(f, email);
      // A moment later, so that the emails' order is their times'.
      f.clock.advance(1000);
      const second = await resetToken(f, email);
      const response = await refused(
        f,
        () => confirmReset(f, { token: first, password: NEW_PASSWORD }),
        '400 link_invalid',
      );
      expect(problemOf(response).detail).toBe('A newer link was sent; use the one in the latest email.');
      expect(outcome(await confirmReset(f, { token: second, password: NEW_PASSWORD }))).toBe('204');
    });
  });

  describe('setting the new password', () => {
    it('sets it once: the new password signs in, the old one no longer does', async () => {
      const f = fixture();
      const email = await account(f);
      const token = await resetToken(f, email);
      const response = await confirmReset(f, { token, password: NEW_PASSWORD });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(outcome(await signIn(f, email, NEW_PASSWORD))).toBe('200');
      expect(outcome(await signIn(f, email, PASSWORD))).toBe('401 invalid_credentials');
      const again = await refused(
        f,
        () => confirmReset(f, { token, password: 'yet another password' }),
        '400 link_invalid',
      );
      expect(problemOf(again).detail).toBe('The link was already used: each link works once.');
    });

    it('ends the sign-in tokens and console sessions issued before, but not personal access tokens', async () => {
      const f = fixture();
      const email = await account(f);
      const bearer = (await signIn(f, email, PASSWORD)).json<IssuedSession>().access_token;
      const console = await f.app.inject({
        method: 'POST',
        url: '/auth/v1/session',
        payload: { email, password: PASSWORD },
      });
      const cookie = cookieHeader(console);
      const personal = await call(f, bearer, 'POST', '/api/v1/tokens', {
        body: { name: 'agent', expires_in_days: 30 },
      });
      const pat = personal.json<{ token: string }>().token;

      expect(
        outcome(await confirmReset(f, { token: await resetToken(f, email), password: NEW_PASSWORD })),
      ).toBe('204');

      const ended = await call(f, bearer, 'GET', '/api/v1/workspaces');
      expect(outcome(ended)).toBe('401 token_revoked');
      expect(problemOf(ended)).toMatchObject({
        detail: "This session ended when the account's password was changed: sign in again.",
        resolution: 'Sign in again with your new password.',
      });
      const consoleAfter = await f.app.inject({
        method: 'GET',
        url: '/auth/v1/session',
        headers: { cookie },
      });
      expect(outcome(consoleAfter)).toBe('401 token_revoked');
      expect(outcome(await call(f, pat, 'GET', '/api/v1/workspaces'))).toBe('200');
      const fresh = (await signIn(f, email, NEW_PASSWORD)).json<IssuedSession>().access_token;
      expect(outcome(await call(f, fresh, 'GET', '/api/v1/workspaces'))).toBe('200');
    });

    it('records user.password_reset with the account as its actor', async () => {
      const f = fixture();
      const email = await account(f);
      await confirmReset(f, { token: await resetToken(f, email), password: NEW_PASSWORD });
      const events = (await snapshotTables(f.database.config)).audit_events as {
        action: string;
        actor_type: string;
        actor_email: string | null;
        workspace_id: string | null;
      }[];
      expect(
        events.filter((event) => event.action === 'user.password_reset' && event.actor_email === email),
      ).toEqual([expect.objectContaining({ actor_type: 'user', workspace_id: null })]);
    });

    it('refuses a link past its hour with 400 link_invalid (expired), and changes nothing', async () => {
      const f = fixture();
      const email = await account(f);
      const token = await resetToken(f, email);
      await later(f, HOUR_MS, () =>
        refused(f, () => confirmReset(f, { token, password: NEW_PASSWORD }), '400 link_invalid'),
      );
      expect(outcome(await signIn(f, email, PASSWORD))).toBe('200');
    });

    it('refuses an unknown token or an invite token with 400 link_invalid (unknown), and a short password with 400 invalid_request', async () => {
      const f = fixture();
      const token = await resetToken(f, await account(f));
      for (const wrong of ['bcr_unknown', `bci_${token.slice(4)}`]) {
        const response = await refused(
          f,
          () => confirmReset(f, { token: wrong, password: NEW_PASSWORD }),
          '400 link_invalid',
        );
        expect(problemOf(response).detail).toBe('The link is not valid: it may be mistyped or cut short.');
      }
      await refused(f, () => confirmReset(f, { token, password: 'short' }), '400 invalid_request');
      await refused(
        f,
        () => confirmReset(f, { token, password: NEW_PASSWORD, extra: 1 }),
        '400 invalid_request',
      );
    });
  });

  describe('throttling', () => {
    const { resetPerIp, resetPerEmail, linkPerIp } = DEFAULT_ACCOUNT_LINK_LIMITS;

    it(`lets one address ask ${String(resetPerIp.attempts)} times per window, then answers 429 with Retry-After, for any email`, async () => {
      const f = fixture();
      const ip = freshIp();
      for (let i = 0; i < resetPerIp.attempts; i++) {
        expect(outcome(await requestReset(f, { email: `someone${String(i)}@nowhere.example` }, ip))).toBe(
          '202',
        );
      }
      const refusedOne = await unchanged(f, () => requestReset(f, { email: 'another@nowhere.example' }, ip));
      expectRateLimited(refusedOne, resetPerIp.windowSeconds);
      expect(problemOf(refusedOne).detail).toMatch(
        /^Too many password reset requests from your address; try again in \d+ s\.$/,
      );
      expect(outcome(await requestReset(f, { email: 'another@nowhere.example' }))).toBe('202');
    });

    it(`sends one address at most ${String(resetPerEmail.attempts)} links per window from all addresses, known or not alike`, async () => {
      const f = fixture();
      const known = await account(f);
      for (const email of [known, 'unknown@throttle.example']) {
        for (let i = 0; i < resetPerEmail.attempts; i++)
          expect(outcome(await requestReset(f, { email }))).toBe('202');
        const response = await unchanged(f, () => requestReset(f, { email }));
        expectRateLimited(response, resetPerEmail.windowSeconds);
        expect(problemOf(response).detail).toMatch(
          /^Too many password reset requests for this email address;/,
        );
      }
      expect(await emailsTo(f, known)).toHaveLength(resetPerEmail.attempts);
      await later(f, resetPerEmail.windowSeconds * 1000, async () => {
        expect(outcome(await requestReset(f, { email: known }))).toBe('202');
      });
    });

    it(`lets one address try ${String(linkPerIp.attempts)} links per window, then answers 429`, async () => {
      const f = fixture();
      const ip = freshIp();
      for (let i = 0; i < linkPerIp.attempts; i++) {
        expect(
          outcome(await confirmReset(f, { token: `bcr_guess${String(i)}`, password: NEW_PASSWORD }, ip)),
        ).toBe('400 link_invalid');
      }
      const token = await resetToken(f, await account(f));
      const response = await confirmReset(f, { token, password: NEW_PASSWORD }, ip);
      expectRateLimited(response, linkPerIp.windowSeconds);
      expect(problemOf(response).detail).toMatch(
        /^Too many uses of invite and password reset links from your address;/,
      );
      expect(outcome(await confirmReset(f, { token, password: NEW_PASSWORD }))).toBe('204');
    });
  });

  it('keeps no token in plaintext in any table or log line, and masks one that reaches a URL', async () => {
    const f = fixture();
    const token = await resetToken(f, await account(f));
    await expectLinkKeptSecret(f, { token, page: '/reset-password' }, () =>
      confirmReset(f, { token, password: NEW_PASSWORD }),
    );
  });
});
