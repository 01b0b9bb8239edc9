import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { OPERATOR } from '../../src/services/audit/audit.js';
import { createWorkspace } from '../../src/services/accounts/workspaces.js';
import type { UserRecord } from '../../src/store/store.js';
import { startTestApp, type TestApp } from '#test/support/app.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { addUser, bearer } from '#test/support/users.js';
import { problemOf } from '#test/support/http-fixture.js';
import { readContext } from '#test/support/fixtures/brand-agent.js';

const ISSUER = 'https://idp.test/';
const AUDIENCE = 'brand-context';
const KID = 'idp-key-1';
/** BRAND_CONTEXT_JWT_MAX_AGE of this suite: provider tokens older than an hour are refused. */
const MAX_TOKEN_AGE_S = 3600;

let server: Server;
let jwksUrl: string;
let jwksRequests = 0;
let idpKey: CryptoKey;
let strangerKey: CryptoKey;

/** A local identity provider: only its JWKS, which is all the service fetches. */
beforeAll(async () => {
  const pair = await generateKeyPair('RS256');
  idpKey = pair.privateKey;
  strangerKey = (await generateKeyPair('RS256')).privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const body = JSON.stringify({ keys: [jwk] });
  server = createServer((request, response) => {
    if (request.url === '/.well-known/jwks.json') {
      jwksRequests++;
      response.writeHead(200, { 'content-type': 'application/json' }).end(body);
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  jwksUrl = `http://127.0.0.1:${String(port)}/.well-known/jwks.json`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) => {
    server.close((error) => {
      if (error) reject(error);
      else resolve();
    });
  });
});

describeEachBackend('Identity provider tokens (JWKS)', (backend) => {
  let database: TestDatabase;
  let testApp: TestApp;
  let workspaceId: string;
  let otherWorkspaceId: string;
  let member: UserRecord;
  let memberSession: string;

  interface Claims {
    iss?: string;
    aud?: string;
    email?: unknown;
    /** Seconds from the test clock's now. */
    expiresIn?: number;
    /** Seconds before the test clock's now. */
    issuedAgo?: number;
    /** Registered claims to leave out. */
    without?: ('exp' | 'iat')[];
    key?: CryptoKey;
    kid?: string;
    extra?: JWTPayload;
  }

  /** A token as the identity provider issues it, dated by the app's clock; each part can be broken. */
  function idpToken(claims: Claims = {}): Promise<string> {
    const now = Math.floor(testApp.clock.now() / 1000);
    const payload: JWTPayload = {
      iss: claims.iss ?? ISSUER,
      aud: claims.aud ?? AUDIENCE,
      sub: 'idp|12345',
      iat: now - (claims.issuedAgo ?? 60),
      exp: now + (claims.expiresIn ?? 600),
      ...claims.extra,
    };
    if ('email' in claims) payload.email = claims.email;
    else payload.email = member.email;
    const without: string[] = claims.without ?? [];
    const kept = Object.entries(payload).filter(([claim]) => !without.includes(claim));
    return new SignJWT(Object.fromEntries(kept))
      .setProtectedHeader({ alg: 'RS256', kid: claims.kid ?? KID, typ: 'JWT' })
      .sign(claims.key ?? idpKey);
  }

  function listWorkspaces(token: string) {
    return testApp.app.inject({ method: 'GET', url: '/api/v1/workspaces', headers: bearer(token) });
  }

  beforeAll(async () => {
    database = await backend.create();
    testApp = await startTestApp(database, {
      auth: {
        identityProvider: {
          jwksUrl,
          issuer: ISSUER,
          audience: AUDIENCE,
          emailClaim: 'email',
          maxTokenAgeSeconds: MAX_TOKEN_AGE_S,
        },
      },
    });
    workspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'IdP Co' })).id;
    otherWorkspaceId = (await createWorkspace(testApp.deps, OPERATOR, { name: 'Not Yours Ltd' })).id;
    const added = await addUser(testApp, { workspaceId, role: 'member' });
    member = added.user;
    memberSession = added.token;
  });
  afterAll(async () => {
    await testApp.close();
    await database.drop();
  });

  it('accepts a token of the identity provider naming a member: the API and the read operation answer 200', async () => {
    const token = await idpToken();
    const workspaces = await listWorkspaces(token);
    expect(workspaces.statusCode).toBe(200);
    expect(workspaces.json()).toEqual({
      workspaces: [
        { id: workspaceId, name: 'IdP Co', created_at: expect.any(String) as string, role: 'member' },
      ],
    });
    const read = await readContext(testApp.app, workspaceId, { key: token });
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ workspace_id: workspaceId, name: 'IdP Co' });
    expect(jwksRequests).toBeGreaterThan(0);
  });

  it('matches the email claim without regard to case', async () => {
    const token = await idpToken({ email: member.email.toUpperCase() });
    expect((await listWorkspaces(token)).statusCode).toBe(200);
  });

  it('still gives a member 403 on a workspace they do not belong to', async () => {
    const response = await readContext(testApp.app, otherWorkspaceId, { key: await idpToken() });
    expect(response.statusCode).toBe(403);
    expect(problemOf(response).code).toBe('workspace_forbidden');
  });

  it('rejects a wrong audience, a wrong issuer, or another key’s signature with 401 invalid_token', async () => {
    const cases = {
      audience: await idpToken({ aud: 'some-other-api' }),
      issuer: await idpToken({ iss: 'https://evil.test/' }),
      'other key, same kid': await idpToken({ key: strangerKey }),
      'other key, unknown kid': await idpToken({ key: strangerKey, kid: 'stranger' }),
      'provider key posing as this service': await idpToken({ iss: 'brand-context' }),
    };
    for (const [name, token] of Object.entries(cases)) {
      for (const response of [
        await listWorkspaces(token),
        await readContext(testApp.app, workspaceId, { key: token }),
      ]) {
        expect(response.statusCode, name).toBe(401);
        expect(problemOf(response).code, name).toBe('invalid_token');
      }
    }
  });

  it('rejects an expired provider token with 401 token_expired', async () => {
    const token = await idpToken({ expiresIn: -30 });
    const response = await listWorkspaces(token);
    expect(response.statusCode).toBe(401);
    expect(problemOf(response).code).toBe('token_expired');
    const read = await readContext(testApp.app, workspaceId, { key: token });
    expect(read.statusCode).toBe(401);
  });

  it('rejects a provider token without exp or iat with 401 invalid_token naming the claim', async () => {
    for (const claim of ['exp', 'iat'] as const) {
      const token = await idpToken({ without: [claim] });
      for (const response of [
        await listWorkspaces(token),
        await readContext(testApp.app, workspaceId, { key: token }),
      ]) {
        expect(response.statusCode, claim).toBe(401);
        expect(problemOf(response).code, claim).toBe('invalid_token');
        expect(problemOf(response).detail, claim).toContain(`"${claim}"`);
      }
    }
  });

  it('rejects a provider token issued longer ago than the maximum age, even before its exp, with 401 invalid_token', async () => {
    const young = await idpToken({ issuedAgo: MAX_TOKEN_AGE_S - 60, expiresIn: 3600 });
    expect((await listWorkspaces(young)).statusCode).toBe(200);
    const old = await idpToken({ issuedAgo: MAX_TOKEN_AGE_S + 60, expiresIn: 3600 });
    for (const response of [
      await listWorkspaces(old),
      await readContext(testApp.app, workspaceId, { key: old }),
    ]) {
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('invalid_token');
      expect(problemOf(response).detail).toContain('"iat"');
      expect(problemOf(response).detail).toContain(String(MAX_TOKEN_AGE_S));
    }
  });

  it('rejects a valid provider token naming no account here, or no email at all, with 401', async () => {
    for (const email of ['stranger@example.com', undefined, 42]) {
      const token = await idpToken({ email });
      const response = await listWorkspaces(token);
      expect(response.statusCode).toBe(401);
      expect(problemOf(response).code).toBe('invalid_token');
      const read = await readContext(testApp.app, workspaceId, { key: token });
      expect(read.statusCode).toBe(401);
    }
  });

  it('keeps accepting tokens this service issues, alongside the provider’s', async () => {
    expect((await listWorkspaces(memberSession)).statusCode).toBe(200);
    expect((await readContext(testApp.app, workspaceId, { key: memberSession })).statusCode).toBe(200);
    const created = await testApp.app.inject({
      method: 'POST',
      url: '/api/v1/tokens',
      headers: bearer(await idpToken()),
      payload: { name: 'from an idp session', expires_in_days: 1 },
    });
    expect(created.statusCode).toBe(201);
    const pat = created.json<{ token: string }>().token;
    expect((await listWorkspaces(pat)).statusCode).toBe(200);
  });
});
