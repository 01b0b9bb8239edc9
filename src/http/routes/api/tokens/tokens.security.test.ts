import { expect, it } from 'vitest';
import { issueSession, TokenKeys } from '../../../../services/auth/tokens.js';
import { describeEachBackend, snapshotTables } from '#test/support/databases.js';
import { bearer } from '#test/support/users.js';
import { call, outcome, problemOf, refused, useFixture } from '#test/support/http-fixture.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';
import { tokenAccount, tokensApi } from '#test/support/fixtures/tokens.js';

describeEachBackend('Personal access tokens (/api/v1/tokens): security', (backend) => {
  const fixture = useFixture(backend, { extend: tokenAccount });
  const { session, createToken, created, listWorkspaces, signedByService, sessionClaims, revoke } =
    tokensApi(fixture);

  it('gives 403 workspace_forbidden for a workspace the user is not a member of, 404 for none', async () => {
    const { token } = await created(fixture().user);
    const forbidden = await readContext(fixture().app, fixture().otherWorkspaceId, { key: token });
    expect(forbidden.statusCode).toBe(403);
    expect(problemOf(forbidden).code).toBe('workspace_forbidden');
    expect(forbidden.body).not.toContain('Elsewhere');

    const missing = await readContext(fixture().app, 'ws_doesNotExist000000000000', { key: token });
    expect(missing.statusCode).toBe(404);
    expect(problemOf(missing).code).toBe('workspace_not_found');

    const api = await fixture().app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${fixture().otherWorkspaceId}/brand`,
      headers: bearer(token),
    });
    expect(api.statusCode).toBe(403);
    expect(problemOf(api).code).toBe('workspace_forbidden');
  });

  it('does not let one user revoke another’s token: 404 token_not_found, and the token keeps working', async () => {
    const { id, token } = await created(fixture().user);
    const response = await revoke(await session(fixture().otherOwner.user), id);
    expect(response.statusCode).toBe(404);
    expect(problemOf(response).code).toBe('token_not_found');
    expect((await listWorkspaces(token)).statusCode).toBe(200);
    const unknown = await revoke(await session(fixture().user), 'pat_doesNotExist');
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown).code).toBe('token_not_found');
  });

  it('does not let a personal access token mint another one: 403 session_required', async () => {
    const { token } = await created(fixture().user);
    const response = await createToken(token);
    expect(response.statusCode).toBe(403);
    expect(response.json<{ code: string }>().code).toBe('session_required');
  });

  it('rejects a token signed with another secret with 401 invalid_token', async () => {
    const tokenKeys = new TokenKeys(fixture().store, {
      sessionTtlSeconds: 3600,
      jwtSecret: 'an entirely different secret of enough length',
    });
    const forged = (await issueSession({ ...fixture().deps, tokenKeys }, fixture().user)).access_token;
    for (const response of [
      await listWorkspaces(forged),
      await readContext(fixture().app, fixture().tokenWorkspaceId, { key: forged }),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('invalid_token');
    }
    const tampered = await session(fixture().user);
    const [header, , signature] = tampered.split('.');
    const payload = Buffer.from(
      JSON.stringify({
        sub: fixture().otherOwner.user.id,
        iss: 'brand-context',
        aud: 'brand-context',
        exp: 4e9,
      }),
    ).toString('base64url');
    const mixed = await listWorkspaces(`${String(header)}.${payload}.${String(signature)}`);
    expect(mixed.statusCode).toBe(401);
    expect(problemOf(mixed).code).toBe('invalid_token');
  });

  it('refuses a correctly signed token that lacks exp, iat, sub, iss, aud or jti with 401 invalid_token naming the claim', async () => {
    // the hand-made session itself is accepted, so each refusal below is down to the one missing claim
    expect((await listWorkspaces(await signedByService(sessionClaims()))).statusCode).toBe(200);
    for (const claim of ['exp', 'iat', 'sub', 'iss', 'aud', 'jti']) {
      const { [claim]: _missing, ...claims } = sessionClaims();
      const token = await signedByService(claims);
      for (const response of [
        await listWorkspaces(token),
        await readContext(fixture().app, fixture().tokenWorkspaceId, { key: token }),
      ]) {
        expect(response.statusCode, claim).toBe(401);
        expect(problemOf(response).code, claim).toBe('invalid_token');
        expect(problemOf(response).detail, claim).toContain(`"${claim}"`);
        expect(response.headers['www-authenticate']).toBe(
          'Bearer realm="brand-context", error="invalid_token"',
        );
      }
    }
  });

  it('refuses a correctly signed token whose sub or jti is not a string with 401 invalid_token', async () => {
    for (const claim of ['sub', 'jti']) {
      const token = await signedByService({ ...sessionClaims(), [claim]: 42 });
      const response = await listWorkspaces(token);
      expect(response.statusCode, claim).toBe(401);
      expect(problemOf(response).code, claim).toBe('invalid_token');
      expect(problemOf(response).detail, claim).toContain(`"${claim}"`);
    }
  });

  it('refuses a token that lives longer than the service issues: a session over its TTL, a personal access token over 90 days', async () => {
    const now = Math.floor(fixture().clock.now() / 1000);
    const longSession = await signedByService({ ...sessionClaims(), exp: now + 3601 });
    const { id } = await created(fixture().user, { name: 'stretched', expires_in_days: 90 });
    const ninetyDays = await signedByService({ ...sessionClaims(), jti: id, exp: now + 90 * 86_400 });
    const longPat = await signedByService({ ...sessionClaims(), jti: id, exp: now + 90 * 86_400 + 1 });
    const forever = await signedByService({ ...sessionClaims(), jti: id, exp: 4e9 });
    expect((await listWorkspaces(ninetyDays)).statusCode).toBe(200);
    for (const token of [longSession, longPat, forever]) {
      for (const response of [
        await listWorkspaces(token),
        await readContext(fixture().app, fixture().tokenWorkspaceId, { key: token }),
      ]) {
        expect(response.statusCode).toBe(401);
        expect(problemOf(response).code).toBe('invalid_token');
        expect(problemOf(response).detail).toMatch(/lifetime/);
      }
    }
  });

  it('never stores a token in plaintext', async () => {
    const tokens = await Promise.all([1, 2, 3].map(() => created(fixture().user)));
    const dump = JSON.stringify(await snapshotTables(fixture().database.config));
    expect(dump).toContain(tokens[0]?.id);
    for (const { token } of tokens) {
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.split('.')[2]);
    }
    const logs = fixture().logs.join('');
    for (const { token } of tokens) expect(logs).not.toContain(token.split('.')[2]);
  });
  it('lets no key and no anonymous caller list, create or revoke tokens, and changes nothing', async () => {
    const f = fixture();
    const { id } = await created(f.user, { name: 'kept', expires_in_days: 7 });
    const cases: [string | undefined, string][] = [
      [f.brandKey, '403 brand_key_not_allowed'],
      [f.apiKey, '403 api_key_not_allowed'],
      [undefined, '401 missing_token'],
    ];
    for (const [credential, expected] of cases) {
      const listed = await refused(f, () => call(f, credential, 'GET', '/api/v1/tokens'), expected);
      expect(listed.body).not.toContain(id);
      await refused(
        f,
        () => call(f, credential, 'POST', '/api/v1/tokens', { body: { name: 'minted' } }),
        expected,
      );
      await refused(f, () => call(f, credential, 'DELETE', `/api/v1/tokens/${id}`), expected);
    }
    expect(outcome(await listWorkspaces(await session(f.user)))).toBe('200');
  });
});
