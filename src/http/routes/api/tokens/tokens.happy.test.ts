import { expect, it } from 'vitest';
import type { AccessToken, CreatedAccessToken } from '../../../../contract/access-tokens.js';
import { DAY_MS } from '#test/support/clock.js';
import { describeEachBackend } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';
import { problemOf, useFixture } from '#test/support/http-fixture.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { tokenAccount, tokensApi } from '#test/support/fixtures/tokens.js';

describeEachBackend('Personal access tokens (/api/v1/tokens): the happy paths', (backend) => {
  const fixture = useFixture(backend, { extend: tokenAccount });
  const { session, createToken, created, listWorkspaces, revoke } = tokensApi(fixture);

  it('creates a token with 201, showing it once, expiring the given number of days from now', async () => {
    const response = await createToken(await session(fixture().user), {
      name: 'Claude Desktop',
      expires_in_days: 7,
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json<CreatedAccessToken>();
    const now = fixture().clock.now();
    expect(body).toEqual({
      id: expect.stringMatching(/^pat_/) as string,
      name: 'Claude Desktop',
      status: 'active',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 7 * DAY_MS).toISOString(),
      revoked_at: null,
      last_used_at: null,
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/) as string,
    });
  });

  it('defaults to 30 days when expires_in_days is left out', async () => {
    const body = await created(fixture().user, { name: 'default lifetime' });
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(30 * DAY_MS);
  });

  it('lists the caller’s tokens without the tokens themselves', async () => {
    const token = await created(fixture().user, { name: 'listed', expires_in_days: 10 });
    const response = await fixture().app.inject({
      method: 'GET',
      url: '/api/v1/tokens',
      headers: bearer(await session(fixture().user)),
    });
    expect(response.statusCode).toBe(200);
    const { tokens } = response.json<{ tokens: AccessToken[] }>();
    const { token: secret, ...view } = token;
    expect(tokens).toContainEqual(view);
    expect(response.body).not.toContain(secret);
    expect(response.body).not.toContain(secret.split('.')[2]);
    expect(tokens.every((entry) => !('token' in entry))).toBe(true);
    // another user's listing does not show it
    const theirs = await fixture().app.inject({
      method: 'GET',
      url: '/api/v1/tokens',
      headers: bearer(await session(fixture().otherOwner.user)),
    });
    expect(theirs.json<{ tokens: AccessToken[] }>().tokens.map((entry) => entry.id)).not.toContain(token.id);
  });

  it('works as a bearer token on the API and on the read operation of a workspace the user belongs to', async () => {
    const { token } = await created(fixture().user);
    const workspaces = await listWorkspaces(token);
    expect(workspaces.statusCode).toBe(200);
    expect(workspaces.json<{ workspaces: { id: string }[] }>().workspaces.map((w) => w.id)).toEqual([
      fixture().tokenWorkspaceId,
    ]);

    const read = await readContext(fixture().app, fixture().tokenWorkspaceId, { key: token });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ workspace_id: fixture().tokenWorkspaceId, name: 'Token Co' });
  });

  it('revokes with DELETE, idempotently; the revoked token then gets 401 token_revoked everywhere', async () => {
    const { id, token } = await created(fixture().user);
    expect((await listWorkspaces(token)).statusCode).toBe(200);
    const owner = await session(fixture().user);

    const first = await revoke(owner, id);
    expect(first.statusCode).toBe(200);
    const revoked = first.json<AccessToken>();
    expect(revoked).toMatchObject({
      id,
      status: 'revoked',
      revoked_at: new Date(fixture().clock.now()).toISOString(),
    });

    fixture().clock.advance(1000);
    const again = await revoke(owner, id);
    expect(again.statusCode).toBe(200);
    expect(again.json<AccessToken>()).toEqual(revoked);

    const api = await listWorkspaces(token);
    expect(api.statusCode).toBe(401);
    expect(problemOf(api).code).toBe('token_revoked');
    expect(api.headers['www-authenticate']).toBe('Bearer realm="brand-context", error="invalid_token"');
    const read = await readContext(fixture().app, fixture().tokenWorkspaceId, { key: token });
    expect(read.statusCode).toBe(401);
    expect(problemOf(read).code).toBe('token_revoked');
    // a revoked token cannot even revoke itself or list tokens
    expect((await revoke(token, id)).statusCode).toBe(401);
  });
});
