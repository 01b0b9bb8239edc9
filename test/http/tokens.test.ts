import type { LightMyRequestResponse } from 'fastify';
import { type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit.js';
import { TokenService } from '../../src/services/tokens.js';
import { createWorkspace } from '../../src/services/workspaces.js';
import type { UserRecord } from '../../src/store/store.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { DAY_MS } from '../support/clock.js';
import { describeEachBackend, snapshotTables, type TestDatabase } from '../support/databases.js';
import { addUser, bearer } from '../support/users.js';
import type { AccessToken, CreatedAccessToken } from '../../src/contract/access-tokens.js';
import { problemOf } from '../support/http-fixture.js';
import { readContext } from '../support/fixtures/brand-agent.js';

describeEachBackend('Personal access tokens (/api/v1/tokens)', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let workspaceId: string;
  let otherWorkspaceId: string;
  let user: UserRecord;
  let stranger: UserRecord;

  /** A fresh session for `who`, valid for an hour of the test clock from now. */
  async function session(who: UserRecord): Promise<string> {
    return (await testApp.tokens.issueSession(who)).access_token;
  }

  async function createToken(
    token: string,
    body: Record<string, unknown> = { name: 'Claude Desktop', expires_in_days: 30 },
  ): Promise<LightMyRequestResponse> {
    return testApp.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: bearer(token),
      payload: body,
    });
  }

  async function created(who: UserRecord, body?: Record<string, unknown>): Promise<CreatedAccessToken> {
    const response = await createToken(await session(who), body);
    expect(response.statusCode).toBe(201);
    return response.json<CreatedAccessToken>();
  }

  function listWorkspaces(token: string): Promise<LightMyRequestResponse> {
    return testApp.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: bearer(token) });
  }

  /**
   * A token signed with the service's own secret (so it passes the signature check) carrying exactly
   * `claims`: what a leaked secret or a past bug could have produced.
   */
  async function signedByService(claims: JWTPayload): Promise<string> {
    const secret = await testApp.store.settings.getOrCreate('jwt_secret', 'unused: the app made one');
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .sign(new TextEncoder().encode(secret));
  }

  /** The claims of a session this service would issue now (an hour long), for `user`. */
  function sessionClaims(): JWTPayload {
    const now = Math.floor(testApp.clock.now() / 1000);
    return {
      iss: 'brand-context',
      aud: 'brand-context',
      sub: user.id,
      iat: now,
      exp: now + 3600,
      jti: 'ses_handMadeSession',
    };
  }

  function revoke(token: string, id: string): Promise<LightMyRequestResponse> {
    return testApp.app.inject({ method: 'DELETE', url: `/api/v1/tokens/${id}`, headers: bearer(token) });
  }

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database);
    workspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Token Co' })).id;
    otherWorkspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Elsewhere Inc' })).id;
    user = (await addUser(testApp, { workspaceId, role: 'member' })).user;
    stranger = (await addUser(testApp, { workspaceId: otherWorkspaceId, role: 'owner' })).user;
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('creates a token with 201, showing it once, expiring the given number of days from now', async () => {
    const response = await createToken(await session(user), { name: 'Claude Desktop', expires_in_days: 7 });
    expect(response.statusCode).toBe(201);
    expect(response.headers['cache-control']).toBe('no-store');
    const body = response.json<CreatedAccessToken>();
    const now = testApp.clock.now();
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
    const body = await created(user, { name: 'default lifetime' });
    expect(Date.parse(body.expires_at) - Date.parse(body.created_at)).toBe(30 * DAY_MS);
  });

  it('lists the caller’s tokens without the tokens themselves', async () => {
    const token = await created(user, { name: 'listed', expires_in_days: 10 });
    const response = await testApp.app.inject({
      method: 'GET',
      url: '/api/v1/tokens',
      headers: bearer(await session(user)),
    });
    expect(response.statusCode).toBe(200);
    const { tokens } = response.json<{ tokens: AccessToken[] }>();
    const { token: secret, ...view } = token;
    expect(tokens).toContainEqual(view);
    expect(response.body).not.toContain(secret);
    expect(response.body).not.toContain(secret.split('.')[2]);
    expect(tokens.every((entry) => !('token' in entry))).toBe(true);
    // another user's listing does not show it
    const theirs = await testApp.app.inject({
      method: 'GET',
      url: '/api/v1/tokens',
      headers: bearer(await session(stranger)),
    });
    expect(theirs.json<{ tokens: AccessToken[] }>().tokens.map((entry) => entry.id)).not.toContain(token.id);
  });

  it('works as a bearer token on the API and on the read operation of a workspace the user belongs to', async () => {
    const { token } = await created(user);
    const workspaces = await listWorkspaces(token);
    expect(workspaces.statusCode).toBe(200);
    expect(workspaces.json<{ workspaces: { id: string }[] }>().workspaces.map((w) => w.id)).toEqual([
      workspaceId,
    ]);

    const read = await readContext(testApp.app, workspaceId, { key: token });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ workspace_id: workspaceId, name: 'Token Co' });
  });

  it('gives 403 workspace_forbidden for a workspace the user is not a member of, 404 for none', async () => {
    const { token } = await created(user);
    const forbidden = await readContext(testApp.app, otherWorkspaceId, { key: token });
    expect(forbidden.statusCode).toBe(403);
    expect(problemOf(forbidden).code).toBe('workspace_forbidden');
    expect(forbidden.body).not.toContain('Elsewhere');

    const missing = await readContext(testApp.app, 'ws_doesNotExist000000000000', { key: token });
    expect(missing.statusCode).toBe(404);
    expect(problemOf(missing).code).toBe('workspace_not_found');

    const api = await testApp.app.inject({
      method: 'GET',
      url: `/api/v1/workspaces/${otherWorkspaceId}/brand`,
      headers: bearer(token),
    });
    expect(api.statusCode).toBe(403);
    expect(problemOf(api).code).toBe('workspace_forbidden');
  });

  it('refuses lifetimes outside 1..90 days, and bodies without a name, with 400 naming the field', async () => {
    const token = await session(user);
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

  it('revokes with DELETE, idempotently; the revoked token then gets 401 token_revoked everywhere', async () => {
    const { id, token } = await created(user);
    expect((await listWorkspaces(token)).statusCode).toBe(200);
    const owner = await session(user);

    const first = await revoke(owner, id);
    expect(first.statusCode).toBe(200);
    const revoked = first.json<AccessToken>();
    expect(revoked).toMatchObject({
      id,
      status: 'revoked',
      revoked_at: new Date(testApp.clock.now()).toISOString(),
    });

    testApp.clock.advance(1000);
    const again = await revoke(owner, id);
    expect(again.statusCode).toBe(200);
    expect(again.json<AccessToken>()).toEqual(revoked);

    const api = await listWorkspaces(token);
    expect(api.statusCode).toBe(401);
    expect(problemOf(api).code).toBe('token_revoked');
    expect(api.headers['www-authenticate']).toBe('Bearer realm="brand-context", error="invalid_token"');
    const read = await readContext(testApp.app, workspaceId, { key: token });
    expect(read.statusCode).toBe(401);
    expect(problemOf(read).code).toBe('token_revoked');
    // a revoked token cannot even revoke itself or list tokens
    expect((await revoke(token, id)).statusCode).toBe(401);
  });

  it('does not let one user revoke another’s token: 404 token_not_found, and the token keeps working', async () => {
    const { id, token } = await created(user);
    const response = await revoke(await session(stranger), id);
    expect(response.statusCode).toBe(404);
    expect(problemOf(response).code).toBe('token_not_found');
    expect((await listWorkspaces(token)).statusCode).toBe(200);
    const unknown = await revoke(await session(user), 'pat_doesNotExist');
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown).code).toBe('token_not_found');
  });

  it('does not let a personal access token mint another one: 403 session_required', async () => {
    const { token } = await created(user);
    const response = await createToken(token);
    expect(response.statusCode).toBe(403);
    expect(response.json<{ code: string }>().code).toBe('session_required');
  });

  it('rejects a token signed with another secret with 401 invalid_token', async () => {
    const forger = new TokenService(testApp.deps, {
      sessionTtlSeconds: 3600,
      jwtSecret: 'an entirely different secret of enough length',
    });
    const forged = (await forger.issueSession(user)).access_token;
    for (const response of [
      await listWorkspaces(forged),
      await readContext(testApp.app, workspaceId, { key: forged }),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('invalid_token');
    }
    const tampered = await session(user);
    const [header, , signature] = tampered.split('.');
    const payload = Buffer.from(
      JSON.stringify({ sub: stranger.id, iss: 'brand-context', aud: 'brand-context', exp: 4e9 }),
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
        await readContext(testApp.app, workspaceId, { key: token }),
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
    const now = Math.floor(testApp.clock.now() / 1000);
    const longSession = await signedByService({ ...sessionClaims(), exp: now + 3601 });
    const { id } = await created(user, { name: 'stretched', expires_in_days: 90 });
    const ninetyDays = await signedByService({ ...sessionClaims(), jti: id, exp: now + 90 * 86_400 });
    const longPat = await signedByService({ ...sessionClaims(), jti: id, exp: now + 90 * 86_400 + 1 });
    const forever = await signedByService({ ...sessionClaims(), jti: id, exp: 4e9 });
    expect((await listWorkspaces(ninetyDays)).statusCode).toBe(200);
    for (const token of [longSession, longPat, forever]) {
      for (const response of [
        await listWorkspaces(token),
        await readContext(testApp.app, workspaceId, { key: token }),
      ]) {
        expect(response.statusCode).toBe(401);
        expect(problemOf(response).code).toBe('invalid_token');
        expect(problemOf(response).detail).toMatch(/lifetime/);
      }
    }
  });

  it('never stores a token in plaintext', async () => {
    const tokens = await Promise.all([1, 2, 3].map(() => created(user)));
    const dump = JSON.stringify(await snapshotTables(database.config));
    expect(dump).toContain(tokens[0]?.id);
    for (const { token } of tokens) {
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(token.split('.')[2]);
    }
    const logs = testApp.logs.join('');
    for (const { token } of tokens) expect(logs).not.toContain(token.split('.')[2]);
  });

  it('expires: a session after its hour, a personal access token after its days, both 401 token_expired', async () => {
    const sessionToken = await session(user);
    const pat = await created(user, { name: 'one day', expires_in_days: 1 });
    expect((await listWorkspaces(sessionToken)).statusCode).toBe(200);

    testApp.clock.advance(3601 * 1000);
    const expiredSession = await listWorkspaces(sessionToken);
    expect(expiredSession.statusCode).toBe(401);
    expect(problemOf(expiredSession).code).toBe('token_expired');
    const expiredRead = await readContext(testApp.app, workspaceId, { key: sessionToken });
    expect(expiredRead.statusCode).toBe(401);
    expect(problemOf(expiredRead).code).toBe('token_expired');
    expect((await listWorkspaces(pat.token)).statusCode).toBe(200);

    testApp.clock.advance(DAY_MS);
    const expiredPat = await listWorkspaces(pat.token);
    expect(expiredPat.statusCode).toBe(401);
    expect(problemOf(expiredPat).code).toBe('token_expired');
    const listing = await testApp.app.inject({
      method: 'GET',
      url: '/api/v1/tokens',
      headers: bearer(await session(user)),
    });
    expect(
      listing.json<{ tokens: AccessToken[] }>().tokens.find((entry) => entry.id === pat.id)?.status,
    ).toBe('expired');
  });
});
