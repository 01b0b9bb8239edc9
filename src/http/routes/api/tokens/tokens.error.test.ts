import { expect, it } from 'vitest';
import type { AccessToken } from '../../../../contract/access-tokens.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';
import { expectNonJsonRefused, problemOf, useFixture } from '#test/support/http-fixture.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { tokenAccount, tokensApi } from '#test/support/fixtures/tokens.js';

describeEachBackend('Personal access tokens (/api/v1/tokens): errors', (backend) => {
  const fixture = useFixture(backend, { extend: tokenAccount });
  const { session, createToken, created, listWorkspaces } = tokensApi(fixture);

  it('refuses lifetimes outside 1..90 days, and bodies without a name, with 400 naming the field', async () => {
    const token = await session(fixture().user);
    for (const days of [0, 91, -1, 1.5, '30']) {
      const response = await createToken(token, { name: 'bad lifetime', expires_in_days: days });
      expect(response.statusCode).toBe(400);
      expect(problemOf(response).code).toBe('invalid_request');
      expect(problemOf(response).errors?.map((issue) => issue.field)).toEqual(['expires_in_days']);
    }
    const nameless = await createToken(token, { expires_in_days: 30 });
    expect(nameless.statusCode).toBe(400);
    expect(problemOf(nameless).errors?.map((issue) => issue.field)).toEqual(['name']);
    const blank = await createToken(token, { name: '   ', expires_in_days: 30 });
    expect(blank.statusCode).toBe(400);
    expect(problemOf(blank).errors?.map((issue) => issue.field)).toEqual(['name']);
    // the boundaries themselves are fine
    for (const days of [1, 90]) {
      expect(
        (await createToken(token, { name: `edge ${String(days)}`, expires_in_days: days })).statusCode,
      ).toBe(201);
    }
  });

  it('expires: a session after its hour, a personal access token after its days, both 401 token_expired', async () => {
    const sessionToken = await session(fixture().user);
    const pat = await created(fixture().user, { name: 'one day', expires_in_days: 1 });
    expect((await listWorkspaces(sessionToken)).statusCode).toBe(200);

    fixture().clock.advance(3601 * 1000);
    const expiredSession = await listWorkspaces(sessionToken);
    expect(expiredSession.statusCode).toBe(401);
    expect(problemOf(expiredSession).code).toBe('token_expired');
    const expiredRead = await readContext(fixture().app, fixture().tokenWorkspaceId, { key: sessionToken });
    expect(expiredRead.statusCode).toBe(401);
    expect(problemOf(expiredRead).code).toBe('token_expired');
    expect((await listWorkspaces(pat.token)).statusCode).toBe(200);

    fixture().clock.advance(DAY_MS);
    const expiredPat = await listWorkspaces(pat.token);
    expect(expiredPat.statusCode).toBe(401);
    expect(problemOf(expiredPat).code).toBe('token_expired');
    const listing = await fixture().app.inject({
      method: 'GET',
      url: '/api/v1/tokens',
      headers: bearer(await session(fixture().user)),
    });
    expect(
      listing.json<{ tokens: AccessToken[] }>().tokens.find((entry) => entry.id === pat.id)?.status,
    ).toBe('expired');
  });
  it('answers 400 invalid_json to a body that is not JSON and 415 to one that is not sent as JSON, and creates nothing', async () => {
    const f = fixture();
    await expectNonJsonRefused(f, await session(f.user), 'POST', '/api/v1/tokens');
  });
});
