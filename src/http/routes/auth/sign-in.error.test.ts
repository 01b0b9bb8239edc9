import { expect, it } from 'vitest';
import { PasswordHasher } from '../../../services/auth/passwords.js';
import { startTestApp } from '#test/support/app.js';
import { describeEachBackend } from '#test/support/databases.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import {
  freshIp,
  PASSWORD,
  SIGN_IN_LIMITS,
  signInAccounts,
  signInApi,
  withoutRequestId,
  WRONG_PASSWORD,
} from '#test/support/fixtures/auth.js';

describeEachBackend('POST /auth/v1/token: sign-in, errors', (backend) => {
  const fixture = useFixture(backend, { app: { signInLimits: SIGN_IN_LIMITS }, extend: signInAccounts });
  const { signIn } = signInApi();

  it('answers a wrong password and an unknown email with the same 401 invalid_credentials', async () => {
    const { app, emails } = fixture();
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

  it('rejects a body without the fields, or with fields of the wrong type, with 400 naming them', async () => {
    const { app, emails } = fixture();
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

  it('answers 503 sign_in_busy with Retry-After, never 500, to sign-ins beyond the password checks it holds', async () => {
    const { emails } = fixture();
    // one check at a time and two waiting: 30 sign-ins at once overflow it whatever the machine
    const busyApp = await startTestApp(fixture().database, {
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
});
