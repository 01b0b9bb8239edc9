import { expect, it } from 'vitest';
import { startTestApp } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { addUser } from '#test/support/users.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import {
  expectRateLimited,
  freshIp,
  PASSWORD,
  SHORT_SIGN_IN_LIMITS,
  SIGN_IN_LIMITS,
  signInAccounts,
  signInApi,
  WRONG_PASSWORD,
} from '#test/support/fixtures/auth.js';

describeEachBackend('POST /auth/v1/token: sign-in, security', (backend) => {
  const fixture = useFixture(backend, { app: { signInLimits: SIGN_IN_LIMITS }, extend: signInAccounts });
  /** Every access token the service handed out in this suite, for the log scan. */
  const { signIn, issued } = signInApi();

  it('lets no one sign in to an account that has no password', async () => {
    const { user } = await addUser(fixture(), { workspaceId: fixture().signInWorkspaceId });
    expect(user.passwordHash).toBeNull();
    for (const password of [PASSWORD, '']) {
      const response = await signIn(fixture().app, { email: user.email, password });
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('invalid_credentials');
    }
  });

  it('throttles one address after 3 failures on an account, even with the right password, while the owner signs in from another address', async () => {
    const { app, emails } = fixture();
    const attacker = freshIp();
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await signIn(app, { email: emails.bob, password: WRONG_PASSWORD }, attacker);
      expect(response.statusCode).toBe(401);
    }
    const blocked = await signIn(app, { email: emails.bob, password: PASSWORD }, attacker);
    expectRateLimited(blocked, 60);
    expect(blocked.body).not.toContain('access_token');
    expect(problemOf(blocked).detail).toMatch(/^Too many failed sign-ins to this account from your address/);
    // the owner, at an address with no failures, is not locked out by a stranger's guesses
    const owner = await signIn(app, { email: emails.bob, password: PASSWORD });
    expect(owner.statusCode).toBe(200);
    // and the attacker's address stays throttled for that account
    expectRateLimited(await signIn(app, { email: emails.bob, password: WRONG_PASSWORD }, attacker), 60);
  });

  it('lets concurrent guesses from one address past its limit no more than sequential ones', async () => {
    const { app, emails } = fixture();
    const ip = freshIp();
    const guesses = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        signIn(app, { email: emails.erin, password: `guess number ${String(i)}` }, ip),
      ),
    );
    const statuses = guesses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429]);
    expect((await signIn(app, { email: emails.erin, password: PASSWORD })).statusCode).toBe(200);
  });

  it('counts only failures: a success clears that address’s failures on the account', async () => {
    const { app, emails } = fixture();
    const ip = freshIp();
    const attempt = (password: string) => signIn(app, { email: emails.frank, password }, ip);
    expect((await attempt(WRONG_PASSWORD)).statusCode).toBe(401);
    expect((await attempt(PASSWORD)).statusCode).toBe(200);
    for (let failure = 0; failure < 3; failure++)
      expect((await attempt(WRONG_PASSWORD)).statusCode).toBe(401);
    expectRateLimited(await attempt(PASSWORD), 60);
  });

  it('keeps a per-account ceiling against guesses from many addresses: past 6 failures every address gets 429', async () => {
    const { app, emails } = fixture();
    const guesses = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) =>
        signIn(app, { email: emails.grace, password: `guess number ${String(i)}` }),
      ),
    );
    const statuses = guesses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429, 429]);
    const owner = await signIn(app, { email: emails.grace, password: PASSWORD });
    expectRateLimited(owner, 60);
    expect(problemOf(owner).detail).toMatch(/^Too many failed sign-ins to this account;/);
    // other accounts are unaffected
    expect((await signIn(app, { email: emails.carol, password: PASSWORD })).statusCode).toBe(200);
  });

  it('throttles an IP after 6 attempts, whatever the accounts, even for the right password', async () => {
    const { app, emails } = fixture();
    const ip = freshIp();
    const attempts = await Promise.all(
      [1, 2, 3, 4, 5, 6].map((i) =>
        signIn(app, { email: `guess${String(i)}-${backend.name}@example.com`, password: PASSWORD }, ip),
      ),
    );
    expect(attempts.map((response) => response.statusCode)).toEqual(Array<number>(6).fill(401));
    const blocked = await signIn(app, { email: emails.carol, password: PASSWORD }, ip);
    expectRateLimited(blocked, 60);
    expect(problemOf(blocked).detail).toMatch(/^Too many sign-in attempts from your address/);
    // the same account from another address is fine: it had no failures
    expect((await signIn(app, { email: emails.carol, password: PASSWORD })).statusCode).toBe(200);
  });

  it('recovers once the window has passed: the right password works again', async () => {
    const { emails } = fixture();
    const shortApp = await startTestApp(fixture().database, { signInLimits: SHORT_SIGN_IN_LIMITS });
    try {
      const { app } = shortApp;
      // per account and address: four guesses at once: three get a password check, the fourth is turned
      // away at once
      const attacker = freshIp();
      const guesses = await Promise.all(
        [1, 2, 3, 4].map(() => signIn(app, { email: emails.dave, password: WRONG_PASSWORD }, attacker)),
      );
      expect(guesses.filter((response) => response.statusCode === 401)).toHaveLength(3);
      const blocked = guesses.find((response) => response.statusCode === 429);
      expect(blocked).toBeDefined();
      if (blocked) expectRateLimited(blocked, 1);

      // per IP: seven attempts at once, one over the limit
      const ip = freshIp();
      const burst = await Promise.all(
        [1, 2, 3, 4, 5, 6, 7].map((i) =>
          signIn(app, { email: `burst${String(i)}-${backend.name}@example.com`, password: PASSWORD }, ip),
        ),
      );
      expect(burst.filter((response) => response.statusCode === 429)).toHaveLength(1);
      expect(burst.filter((response) => response.statusCode === 401)).toHaveLength(6);

      // a millisecond before the windows end the attacker is still turned away, and at their end let in
      shortApp.clock.advance(999);
      expectRateLimited(await signIn(app, { email: emails.dave, password: PASSWORD }, attacker), 1);
      shortApp.clock.advance(1);
      expect((await signIn(app, { email: emails.dave, password: PASSWORD }, attacker)).statusCode).toBe(200);
      expect((await signIn(app, { email: emails.dave, password: PASSWORD }, ip)).statusCode).toBe(200);
    } finally {
      await shortApp.close();
    }
    // a dozen scrypt checks on a busy machine take a while
  }, 60_000);

  it('never writes a password or an access token to the logs', async () => {
    const { app, logs, emails } = fixture();
    // a success, a failure, and a validation error that carries the password in the body
    await signIn(app, { email: emails.carol, password: PASSWORD });
    await signIn(app, { email: emails.carol, password: WRONG_PASSWORD });
    await signIn(app, { email: 12, password: PASSWORD });
    const text = logs.join('');
    expect(text).toContain('/auth/v1/token');
    expect(text).toContain('"status":200');
    expect(text).toContain('"status":401');
    expect(issued.length).toBeGreaterThan(3);
    for (const secret of [PASSWORD, WRONG_PASSWORD, ...issued]) expect(text).not.toContain(secret);
    for (const token of issued) expect(text).not.toContain(token.split('.')[2]);
    expect(text.toLowerCase()).not.toContain('authorization');
  });
});
