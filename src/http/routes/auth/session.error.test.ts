import { expect, it } from 'vitest';
import { describeEachBackend } from '#test/support/databases.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import { consoleAccount, consoleSessionApi } from '#test/support/fixtures/auth.js';

describeEachBackend('the console session (/auth/v1/session, cookie + CSRF): errors', (backend) => {
  const fixture = useFixture(backend, { extend: consoleAccount });
  const { signIn } = consoleSessionApi(fixture);

  it('sets no cookie for a wrong password', async () => {
    const response = await signIn({}, 'not the password at all');
    expect(problemOf(response).code).toBe('invalid_credentials');
    expect(response.headers['set-cookie']).toBeUndefined();
  });
});
