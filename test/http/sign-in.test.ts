import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import { PasswordHasher } from '../../src/services/passwords.js';
import type { SignInLimits } from '../../src/services/sign-in.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/workspaces.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';
import { addUser, bearer } from '../support/users.js';
import { type Problem, problemOf } from '../support/http-fixture.js';

const PASSWORD = 'correct horse battery staple';
const WRONG_PASSWORD = 'incorrect horse battery staple';

/** The app's clock is manual: a window ends only when a test moves it (the recovery test's are one second). */
const LIMITS: SignInLimits = {
  perIp: { attempts: 6, windowSeconds: 60 },
  perAccountAndIp: { attempts: 3, windowSeconds: 60 },
  perAccount: { attempts: 6, windowSeconds: 60 },
};
const SHORT_LIMITS: SignInLimits = {
  perIp: { attempts: 6, windowSeconds: 1 },
  perAccountAndIp: { attempts: 3, windowSeconds: 1 },
  perAccount: { attempts: 6, windowSeconds: 1 },
};

interface Session {
  access_token: string;
  token_type: string;
  expires_in: number;
}

let ipCounter = 0;
/** A fresh client address per call, so one test's attempts never count against another's. */
function freshIp(): string {
  ipCounter++;
  return `10.${String(Math.floor(ipCounter / 250) % 250)}.${String(ipCounter % 250)}.1`;
}

function expectRateLimited(response: LightMyRequestResponse, windowSeconds: number): void {
  expect(response.statusCode).toBe(429);
  expect(problemOf(response).code).toBe('rate_limited');
  const retryAfter = response.headers['retry-after'];
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(windowSeconds);
}

/** Problem body without the per-request id, to compare two answers' shape and words. */
function withoutRequestId(problem: Problem): Omit<Problem, 'request_id'> {
  const { request_id: requestId, ...rest } = problem;
  expect(requestId).toEqual(expect.any(String));
  return rest;
}

describeEachBackend('POST /auth/v1/token: sign-in', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let workspaceId: string;
  /** Every access token the service handed out in this suite, for the log scan. */
  const issued: string[] = [];
  const emails = {
    alice: `alice-${backend.name}@example.com`,
    bob: `bob-${backend.name}@example.com`,
    carol: `carol-${backend.name}@example.com`,
    dave: `dave-${backend.name}@example.com`,
    erin: `erin-${backend.name}@example.com`,
    frank: `frank-${backend.name}@example.com`,
    grace: `grace-${backend.name}@example.com`,
  };

  async function signIn(
    app: FastifyInstance,
    body: unknown,
    remoteAddress = freshIp(),
  ): Promise<LightMyRequestResponse> {
    const response = await app.inject({
      method: 'POST',
      url: '/auth/v1/token',
      payload: body as Record<string, unknown>,
      remoteAddress,
    });
    if (response.statusCode === 200) issued.push(response.json<Session>().access_token);
    return response;
  }

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database, { signInLimits: LIMITS });
    const [alice] = await Promise.all(
      Object.values(emails).map((email) => findOrCreateUser(testApp.deps, email, PASSWORD)),
    );
    if (!alice) throw new Error('no user');
    workspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Sign-in Co', owner: alice })).id;
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('exchanges the right email and password for a bearer token that works on the API', async () => {
    const { app } = testApp;
    const response = await signIn(app, { email: emails.alice, password: PASSWORD });
    expect(response.statusCode).toBe(200);
    const session = response.json<Session>();
    expect(Object.keys(session).sort()).toEqual(['access_token', 'expires_in', 'token_type']);
    expect(session.token_type).toBe('bearer');
    expect(session.expires_in).toBe(3600);
    expect(session.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

    const workspaces = await app.inject({
      method: 'GET',
      url: '/api/v1/workspaces',
      headers: bearer(session.access_token),
    });
    expect(workspaces.statusCode).toBe(200);
    expect(workspaces.json()).toEqual({
      workspaces: [
        { id: workspaceId, name: 'Sign-in Co', created_at: expect.any(String) as string, role: 'owner' },
      ],
    });
  });

  it('accepts the email in any case and with surrounding spaces', async () => {
    const response = await signIn(testApp.app, {
      email: `  ${emails.alice.toUpperCase()} `,
      password: PASSWORD,
    });
    expect(response.statusCode).toBe(200);
  });

  it('answers a wrong password and an unknown email with the same 401 invalid_credentials', async () => {
    const { app } = testApp;
    const wrong = await signIn(app, { email: emails.alice, password: WRONG_PASSWORD });
    const unknown = await signIn(app, { email: `nobody-${backend.name}@example.com`, password: PASSWORD });
    for (const response of [wrong, unknown]) {
      expect(response.statusCode).toBe(401);
      expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
      expect(response.headers['www-authenticate']).toBe('Bearer realm="brand-context"');
      expect(problemOf(response).code).toBe('invalid_credentials');
    }
    expect(withoutRequestId(problemOf(wrong))).toEqual(withoutRequestId(problemOf(unknown)));
    expect(Object.keys(problemOf(wrong)).sort()).toEqual(Object.keys(problemOf(unknown)).sort());
  });

  it('lets no one sign in to an account that has no password', async () => {
    const { user } = await addUser(testApp, { workspaceId });
    expect(user.passwordHash).toBeNull();
    for (const password of [PASSWORD, '']) {
      const response = await signIn(testApp.app, { email: user.email, password });
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('invalid_credentials');
    }
  });

  it('rejects a body without the fields, or with fields of the wrong type, with 400 naming them', async () => {
    const { app } = testApp;
    const empty = await signIn(app, {});
    expect(empty.statusCode).toBe(400);
    expect(problemOf(empty).code).toBe('invalid_request');
    expect(
      problemOf(empty)
        .errors?.map((issue) => issue.field)
        .sort(),
    ).toEqual(['email', 'password']);

    const numeric = await signIn(app, { email: emails.alice, password: 123456789012 });
    expect(numeric.statusCode).toBe(400);
    expect(problemOf(numeric).errors?.map((issue) => issue.field)).toEqual(['password']);

    const notAnEmail = await signIn(app, { email: 'not an email', password: PASSWORD });
    expect(notAnEmail.statusCode).toBe(400);
    expect(problemOf(notAnEmail).errors).toEqual([{ field: 'email', message: 'must be an email address' }]);
  });

  it('throttles one address after 3 failures on an account, even with the right password, while the owner signs in from another address', async () => {
    const { app } = testApp;
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
    const { app } = testApp;
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
    const { app } = testApp;
    const ip = freshIp();
    const attempt = (password: string) => signIn(app, { email: emails.frank, password }, ip);
    expect((await attempt(WRONG_PASSWORD)).statusCode).toBe(401);
    expect((await attempt(PASSWORD)).statusCode).toBe(200);
    for (let failure = 0; failure < 3; failure++)
      expect((await attempt(WRONG_PASSWORD)).statusCode).toBe(401);
    expectRateLimited(await attempt(PASSWORD), 60);
  });

  it('keeps a per-account ceiling against guesses from many addresses: past 6 failures every address gets 429', async () => {
    const { app } = testApp;
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
    const { app } = testApp;
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
    const shortApp = await startTestApp(database, { signInLimits: SHORT_LIMITS });
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

  it('answers 503 sign_in_busy with Retry-After, never 500, to sign-ins beyond the password checks it holds', async () => {
    // one check at a time and two waiting: 30 sign-ins at once overflow it whatever the machine
    const busyApp = await startTestApp(database, {
      passwordHasher: new PasswordHasher({ concurrent: 1, queued: 2 }),
    });
    try {
      const { app } = busyApp;
      const guesser = freshIp();
      const burst = await Promise.all([
        // right passwords, unknown accounts (the decoy check) and wrong passwords from one address
        ...Array.from({ length: 10 }, () => signIn(app, { email: emails.alice, password: PASSWORD })),
        ...Array.from({ length: 10 }, (_, i) =>
          signIn(app, { email: `nobody${String(i)}-${backend.name}@example.com`, password: PASSWORD }),
        ),
        ...Array.from({ length: 10 }, () =>
          signIn(app, { email: emails.carol, password: WRONG_PASSWORD }, guesser),
        ),
      ]);
      const statuses = new Set(burst.map((response) => response.statusCode));
      expect([...statuses].every((status) => [200, 401, 429, 503].includes(status))).toBe(true);
      const busy = burst.filter((response) => response.statusCode === 503);
      expect(busy.length).toBeGreaterThan(0);
      for (const response of busy) {
        expect(response.headers['content-type']).toBe('application/problem+json; charset=utf-8');
        expect(problemOf(response).code).toBe('sign_in_busy');
        expect(response.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      }
      expect(burst.some((response) => response.statusCode === 200)).toBe(true);

      // the checks that were turned away counted as no failure, and their slots are free again
      expect((await signIn(app, { email: emails.carol, password: PASSWORD }, guesser)).statusCode).toBe(200);
      expect((await signIn(app, { email: emails.alice, password: PASSWORD })).statusCode).toBe(200);
    } finally {
      await busyApp.close();
    }
  });

  it('never writes a password or an access token to the logs', async () => {
    const { app, logs } = testApp;
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
