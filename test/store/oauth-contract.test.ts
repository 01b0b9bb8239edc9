import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyBrand } from '../../src/core/brand-context.js';
import { openStore } from '../../src/store/open-store.js';
import type {
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthGrantRecord,
  OAuthTokenRecord,
  Store,
  UserRecord,
} from '../../src/store/store.js';
import { describeEachBackend, type TestDatabase } from '#test/support/databases.js';
import { oldDatabase } from '#test/support/migrations.js';

let sequence = 0;
const unique = (prefix: string) => `${prefix}_oauth${String(++sequence).padStart(8, '0')}`;
const at = (minute: number) => new Date(Date.UTC(2026, 10, 28, 10, minute)).toISOString();
/** A stored hash: the tests need distinct values, not real digests. */
const hash = () => unique('hash').padEnd(64, '0');

function client(overrides: Partial<OAuthClientRecord> = {}): OAuthClientRecord {
  return {
    id: unique('oc'),
    name: 'Claude ☕',
    redirectUris: ['https://claude.ai/api/mcp/auth_callback', 'http://127.0.0.1:33418/callback'],
    source: 'registered',
    metadata: {
      client_name: 'Claude ☕',
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
    },
    createdAt: at(0),
    refreshedAt: at(0),
    ...overrides,
  };
}

function grant(
  clientId: string,
  userId: string,
  workspaceId: string,
  overrides: Partial<OAuthGrantRecord> = {},
): OAuthGrantRecord {
  return {
    id: unique('og'),
    clientId,
    userId,
    workspaceId,
    scopes: ['brand:read', 'campaigns:read'],
    createdAt: at(1),
    lastUsedAt: null,
    revokedAt: null,
    ...overrides,
  };
}

function code(grantId: string, overrides: Partial<OAuthCodeRecord> = {}): OAuthCodeRecord {
  return {
    hash: hash(),
    grantId,
    redirectUri: 'https://claude.ai/api/mcp/auth_callback',
    codeChallenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    resource: 'https://brand.example.com/mcp',
    expiresAt: at(2),
    usedAt: null,
    ...overrides,
  };
}

function token(grantId: string, overrides: Partial<OAuthTokenRecord> = {}): OAuthTokenRecord {
  return {
    hash: hash(),
    grantId,
    kind: 'refresh',
    expiresAt: at(50),
    usedAt: null,
    createdAt: at(1),
    ...overrides,
  };
}

describeEachBackend('OAuth store contract', (backend) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await backend.create();
    store = await openStore(database.config);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  /** A workspace and a member of it, with a client. */
  async function setting() {
    const workspace = { id: unique('ws'), name: 'OAuth Co', createdAt: at(0) };
    await store.workspaces.create(workspace, emptyBrand());
    const user: UserRecord = {
      id: unique('usr'),
      email: `${unique('u')}@example.com`,
      passwordHash: null,
      createdAt: at(0),
    };
    await store.users.create(user);
    await store.workspaces.addMember({
      workspaceId: workspace.id,
      userId: user.id,
      role: 'admin',
      createdAt: at(0),
    });
    const app = client();
    await store.oauth.saveClient(app);
    return { workspace, user, app };
  }

  /** Deletes a row the way an operator or a later feature would, beside the store. */
  async function deleteRow(table: 'users' | 'workspaces', id: string) {
    const db = oldDatabase(database);
    try {
      await db.deleteFrom(table).where('id', '=', id).execute();
    } finally {
      await db.destroy();
    }
  }

  describe('clients', () => {
    it('stores a client with its redirect URIs and metadata as given', async () => {
      const stored = client({ source: 'metadata_document', id: 'https://app.example.com/oauth/client.json' });
      await store.oauth.saveClient(stored);
      expect(await store.oauth.getClient(stored.id)).toEqual(stored);
      expect(await store.oauth.getClient('oc_missing')).toBeUndefined();
    });

    it('replaces a client saved again under its id, keeping when it was first saved', async () => {
      const first = client({ source: 'metadata_document' });
      await store.oauth.saveClient(first);
      const refreshed = client({
        id: first.id,
        name: 'Renamed',
        redirectUris: ['https://new.example.com/cb'],
        source: 'metadata_document',
        metadata: { client_name: 'Renamed' },
        createdAt: at(30),
        refreshedAt: at(30),
      });
      await store.oauth.saveClient(refreshed);
      expect(await store.oauth.getClient(first.id)).toEqual({ ...refreshed, createdAt: first.createdAt });
    });
  });

  describe('grants', () => {
    it('stores a grant and reads it back by id', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id, { scopes: ['campaigns:write'] });
      await store.oauth.createGrant(stored);
      expect(await store.oauth.getGrant(stored.id)).toEqual(stored);
      expect(await store.oauth.getGrant('og_missing')).toBeUndefined();
    });

    it('refuses a grant for a client, user or workspace that does not exist', async () => {
      const { workspace, user, app } = await setting();
      await expect(store.oauth.createGrant(grant('oc_missing', user.id, workspace.id))).rejects.toThrow();
      await expect(store.oauth.createGrant(grant(app.id, 'usr_missing', workspace.id))).rejects.toThrow();
      await expect(store.oauth.createGrant(grant(app.id, user.id, 'ws_missing'))).rejects.toThrow();
    });

    it('revokes a grant once, answering it only to the call that revoked it', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      expect(await store.oauth.revokeGrant(stored.id, at(10))).toEqual({ ...stored, revokedAt: at(10) });
      expect(await store.oauth.revokeGrant(stored.id, at(11))).toBeUndefined();
      expect(await store.oauth.getGrant(stored.id)).toMatchObject({ revokedAt: at(10) });
      expect(await store.oauth.revokeGrant('og_missing', at(11))).toBeUndefined();
    });

    it('stamps the last use of a grant forward only', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      await store.oauth.touchGrant(stored.id, at(20));
      expect(await store.oauth.getGrant(stored.id)).toMatchObject({ lastUsedAt: at(20) });
      await store.oauth.touchGrant(stored.id, at(15));
      expect(await store.oauth.getGrant(stored.id)).toMatchObject({ lastUsedAt: at(20) });
      await store.oauth.touchGrant(stored.id, at(25));
      expect(await store.oauth.getGrant(stored.id)).toMatchObject({ lastUsedAt: at(25) });
    });

    it("lists a workspace's live grants newest first, with the client's name and the user's email", async () => {
      const { workspace, user, app } = await setting();
      const other = await setting();
      const second = client({ name: 'ChatGPT' });
      await store.oauth.saveClient(second);
      const oldest = grant(app.id, user.id, workspace.id, { createdAt: at(1) });
      const newest = grant(second.id, user.id, workspace.id, { createdAt: at(3), lastUsedAt: at(4) });
      const middle = grant(app.id, user.id, workspace.id, { createdAt: at(2) });
      const revoked = grant(app.id, user.id, workspace.id, { createdAt: at(5) });
      const elsewhere = grant(other.app.id, other.user.id, other.workspace.id, { createdAt: at(6) });
      for (const one of [oldest, newest, middle, revoked, elsewhere]) await store.oauth.createGrant(one);
      await store.oauth.revokeGrant(revoked.id, at(7));

      const listed = await store.oauth.listGrants(workspace.id);
      expect(listed).toEqual([
        { ...newest, clientName: 'ChatGPT', userEmail: user.email },
        { ...middle, clientName: app.name, userEmail: user.email },
        { ...oldest, clientName: app.name, userEmail: user.email },
      ]);
      expect(await store.oauth.listGrants('ws_missing')).toEqual([]);
    });
  });

  describe('codes', () => {
    it('uses a code once: the first use answers it unused, a replay answers when it was used', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const issued = code(stored.id);
      await store.oauth.saveCode(issued);

      expect(await store.oauth.useCode(issued.hash, at(1))).toEqual(issued);
      expect(await store.oauth.useCode(issued.hash, at(2))).toEqual({ ...issued, usedAt: at(1) });
      expect(await store.oauth.useCode(hash(), at(2))).toBeUndefined();
    });

    it('refuses two codes of one hash', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const issued = code(stored.id);
      await store.oauth.saveCode(issued);
      await expect(
        store.oauth.saveCode({ ...issued, redirectUri: 'https://other.example.com/cb' }),
      ).rejects.toThrow();
    });

    it('lets exactly one of two uses at once find a code unused', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const issued = code(stored.id);
      await store.oauth.saveCode(issued);
      const uses = await Promise.all([
        store.oauth.useCode(issued.hash, at(1)),
        store.oauth.useCode(issued.hash, at(1)),
      ]);
      expect(uses.filter((use) => use?.usedAt === null)).toHaveLength(1);
      expect(uses.filter((use) => use?.usedAt === at(1))).toHaveLength(1);
    });
  });

  describe('tokens', () => {
    it('finds a token of either kind with its grant and client name, whatever their state', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const access = token(stored.id, { kind: 'access', expiresAt: at(0) });
      const refresh = token(stored.id);
      await store.oauth.saveToken(access);
      await store.oauth.saveToken(refresh);
      await store.oauth.revokeGrant(stored.id, at(5));

      const revoked = { ...stored, revokedAt: at(5) };
      expect(await store.oauth.findToken(access.hash)).toEqual({
        token: access,
        grant: revoked,
        clientName: app.name,
      });
      expect(await store.oauth.findToken(refresh.hash)).toEqual({
        token: refresh,
        grant: revoked,
        clientName: app.name,
      });
      expect(await store.oauth.findToken(hash())).toBeUndefined();
    });

    it('uses a refresh token once: the first use answers it unused, a replay answers when it was used', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const refresh = token(stored.id);
      await store.oauth.saveToken(refresh);

      expect(await store.oauth.useRefreshToken(refresh.hash, at(3))).toEqual(refresh);
      expect(await store.oauth.useRefreshToken(refresh.hash, at(4))).toEqual({ ...refresh, usedAt: at(3) });
      expect(await store.oauth.findToken(refresh.hash)).toMatchObject({ token: { usedAt: at(3) } });
      expect(await store.oauth.useRefreshToken(hash(), at(4))).toBeUndefined();
    });

    it('never uses an access token as a refresh token', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const access = token(stored.id, { kind: 'access' });
      await store.oauth.saveToken(access);

      expect(await store.oauth.useRefreshToken(access.hash, at(3))).toBeUndefined();
      expect(await store.oauth.findToken(access.hash)).toMatchObject({ token: { usedAt: null } });
    });

    it('lets exactly one of two uses at once find a refresh token unused', async () => {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      for (let round = 0; round < 5; round++) {
        const refresh = token(stored.id);
        await store.oauth.saveToken(refresh);
        const uses = await Promise.all([
          store.oauth.useRefreshToken(refresh.hash, at(10)),
          store.oauth.useRefreshToken(refresh.hash, at(11)),
        ]);
        const first = uses.filter((use) => use?.usedAt === null);
        const replays = uses.filter((use) => use?.usedAt === at(10) || use?.usedAt === at(11));
        expect(first).toHaveLength(1);
        expect(replays).toHaveLength(1);
      }
    });
  });

  describe('deletion', () => {
    /** A grant with a code, an access token and a refresh token. */
    async function issued() {
      const { workspace, user, app } = await setting();
      const stored = grant(app.id, user.id, workspace.id);
      await store.oauth.createGrant(stored);
      const issuedCode = code(stored.id);
      const access = token(stored.id, { kind: 'access' });
      const refresh = token(stored.id);
      await store.oauth.saveCode(issuedCode);
      await store.oauth.saveToken(access);
      await store.oauth.saveToken(refresh);
      return { workspace, user, grant: stored, code: issuedCode, access, refresh };
    }

    async function expectGone(left: Awaited<ReturnType<typeof issued>>) {
      expect(await store.oauth.getGrant(left.grant.id)).toBeUndefined();
      expect(await store.oauth.findToken(left.access.hash)).toBeUndefined();
      expect(await store.oauth.findToken(left.refresh.hash)).toBeUndefined();
      expect(await store.oauth.useRefreshToken(left.refresh.hash, at(9))).toBeUndefined();
      expect(await store.oauth.useCode(left.code.hash, at(9))).toBeUndefined();
    }

    it("deletes a user's grants with their codes and tokens when the account is deleted", async () => {
      const left = await issued();
      const kept = await issued();
      await deleteRow('users', left.user.id);
      await expectGone(left);
      expect(await store.oauth.findToken(kept.access.hash)).toMatchObject({ grant: { id: kept.grant.id } });
      expect(await store.oauth.listGrants(left.workspace.id)).toEqual([]);
    });

    it("deletes a workspace's grants with their codes and tokens when the workspace is deleted", async () => {
      const left = await issued();
      const kept = await issued();
      await deleteRow('workspaces', left.workspace.id);
      await expectGone(left);
      expect(await store.oauth.findToken(kept.refresh.hash)).toMatchObject({ grant: { id: kept.grant.id } });
    });
  });
});
