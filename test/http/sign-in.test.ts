import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import type { SignInLimits } from '../../src/services/sign-in.js';
import { createWorkspace, findOrCreateUser } from '../../src/services/workspaces.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { describeEachBackend, type TestDatabase } from '../support/databases.js';
import { addUser, bearer } from '../support/users.js';
import { type Problem, problemOf } from './brand-agent.fixtures.js';

const PASSWORD = 'correct horse battery staple';
const WRONG_PASSWORD = 'incorrect horse battery staple';

/** Windows long enough that no assertion races them; the recovery test uses one-second windows. */
const LIMITS: SignInLimits = {
  perIp: { attempts: 5, windowSeconds: 60 },
  perAccount: { attempts: 3, windowSeconds: 60 },
};
const SHORT_LIMITS: SignInLimits = {
  perIp: { attempts: 5, windowSeconds: 1 },
  perAccount: { attempts: 3, windowSeconds: 1 },
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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

  it('throttles an account after 3 failures: the 4th attempt is 429 even with the right password, from any IP', async () => {
    const { app } = testApp;
    const attacker = freshIp();
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await signIn(app, { email: emails.bob, password: WRONG_PASSWORD }, attacker);
      expect(response.statusCode).toBe(401);
    }
    expectRateLimited(await signIn(app, { email: emails.bob, password: PASSWORD }, attacker), 60);
    // the account is protected from anywhere, not only from the address that guessed
    const elsewhere = await signIn(app, { email: emails.bob, password: PASSWORD });
    expectRateLimited(elsewhere, 60);
    expect(elsewhere.body).not.toContain('access_token');
  });

  it('lets concurrent guesses from many IPs past the account limit no more than sequential ones', async () => {
    const { app } = testApp;
    const email = `erin-${backend.name}@example.com`;
    await findOrCreateUser(testApp.deps, email, PASSWORD);
    const guesses = await Promise.all(
      [1, 2, 3, 4, 5, 6, 7, 8].map((i) => signIn(app, { email, password: `guess number ${String(i)}` })),
    );
    const statuses = guesses.map((response) => response.statusCode).sort();
    expect(statuses).toEqual([401, 401, 401, 429, 429, 429, 429, 429]);
    expectRateLimited(await signIn(app, { email, password: PASSWORD }), 60);
  });

  it('leaves other accounts signing in from other IPs unaffected by one account being throttled', async () => {
    const { app } = testApp;
    expectRateLimited(await signIn(app, { email: emails.bob, password: PASSWORD }), 60);
    const carol = await signIn(app, { email: emails.carol, password: PASSWORD });
    expect(carol.statusCode).toBe(200);
  });

  it('throttles an IP after 5 attempts, whatever the accounts, even for the right password', async () => {
    const { app } = testApp;
    const ip = freshIp();
    const attempts = await Promise.all(
      [1, 2, 3, 4, 5].map((i) =>
        signIn(app, { email: `guess${String(i)}-${backend.name}@example.com`, password: PASSWORD }, ip),
      ),
    );
    expect(attempts.map((response) => response.statusCode)).toEqual([401, 401, 401, 401, 401]);
    expectRateLimited(await signIn(app, { email: emails.carol, password: PASSWORD }, ip), 60);
    // the same account from another address is fine: it had no failures
    expect((await signIn(app, { email: emails.carol, password: PASSWORD })).statusCode).toBe(200);
  });

  it('recovers once the window has passed: the right password works again', async () => {
    const shortApp = await startTestApp(database, { signInLimits: SHORT_LIMITS });
    try {
      const { app } = shortApp;
      // per account: four guesses at once (so the one-second window cannot lapse before the check):
      // three get a password check, the fourth is turned away at once
      const guesses = await Promise.all(
        [1, 2, 3, 4].map(() => signIn(app, { email: emails.dave, password: WRONG_PASSWORD })),
      );
      expect(guesses.filter((response) => response.statusCode === 401)).toHaveLength(3);
      const blocked = guesses.find((response) => response.statusCode === 429);
      expect(blocked).toBeDefined();
      if (blocked) expectRateLimited(blocked, 1);

      // per IP: six attempts at once, one over the limit
      const ip = freshIp();
      const burst = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((i) =>
          signIn(app, { email: `burst${String(i)}-${backend.name}@example.com`, password: PASSWORD }, ip),
        ),
      );
      expect(burst.filter((response) => response.statusCode === 429)).toHaveLength(1);
      expect(burst.filter((response) => response.statusCode === 401)).toHaveLength(5);

      await sleep(1100);
      expect((await signIn(app, { email: emails.dave, password: PASSWORD })).statusCode).toBe(200);
      expect((await signIn(app, { email: emails.dave, password: PASSWORD }, ip)).statusCode).toBe(200);
    } finally {
      await shortApp.close();
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
