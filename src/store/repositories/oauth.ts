import type { Selectable } from 'kysely';
import type { Session } from '../session.js';
import type {
  ListedOAuthGrant,
  OAuthClientRecord,
  OAuthCodeRecord,
  OAuthGrantRecord,
  OAuthRepository,
  OAuthTokenRecord,
} from '../store.js';

export interface OAuthClientColumns {
  id: string;
  name: string;
  /** JSON text: an array of URIs. */
  redirect_uris: string;
  source: OAuthClientRecord['source'];
  /** JSON text: an object. */
  metadata: string;
  created_at: string;
  refreshed_at: string;
}

export interface OAuthGrantColumns {
  id: string;
  client_id: string;
  user_id: string;
  workspace_id: string;
  /** JSON text: an array of scopes. */
  scopes: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface OAuthCodeColumns {
  /** SHA-256 of the code: the code itself is never stored. */
  hash: string;
  grant_id: string;
  redirect_uri: string;
  code_challenge: string;
  resource: string;
  expires_at: string;
  used_at: string | null;
}

export interface OAuthTokenColumns {
  /** SHA-256 of the token: the token itself is never stored. */
  hash: string;
  grant_id: string;
  kind: OAuthTokenRecord['kind'];
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

function toClient(row: Selectable<OAuthClientColumns>): OAuthClientRecord {
  return {
    id: row.id,
    name: row.name,
    redirectUris: JSON.parse(row.redirect_uris) as string[],
    source: row.source,
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
    createdAt: row.created_at,
    refreshedAt: row.refreshed_at,
  };
}

function toGrant(row: Selectable<OAuthGrantColumns>): OAuthGrantRecord {
  return {
    id: row.id,
    clientId: row.client_id,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    scopes: JSON.parse(row.scopes) as string[],
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}

function toCode(row: Selectable<OAuthCodeColumns>): OAuthCodeRecord {
  return {
    hash: row.hash,
    grantId: row.grant_id,
    redirectUri: row.redirect_uri,
    codeChallenge: row.code_challenge,
    resource: row.resource,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

function toToken(row: Selectable<OAuthTokenColumns>): OAuthTokenRecord {
  return {
    hash: row.hash,
    grantId: row.grant_id,
    kind: row.kind,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    createdAt: row.created_at,
  };
}

/**
 * OAuth for MCP clients (docs/mcp.md). Tokens are looked up on every request, so none of these writes is
 * announced. Codes and refresh tokens are used once: the update that marks one is conditional on its not
 * being marked yet, so of two uses at once exactly one finds it unused (on PostgreSQL the second waits for
 * the first's row lock, then finds the condition false).
 */
export class OAuthTables implements OAuthRepository {
  constructor(private readonly session: Session) {}

  async saveClient(client: OAuthClientRecord): Promise<void> {
    const replaced = {
      name: client.name,
      redirect_uris: JSON.stringify(client.redirectUris),
      source: client.source,
      metadata: JSON.stringify(client.metadata),
      refreshed_at: client.refreshedAt,
    };
    await this.session.db
      .insertInto('oauth_clients')
      .values({ id: client.id, created_at: client.createdAt, ...replaced })
      .onConflict((oc) => oc.column('id').doUpdateSet(replaced))
      .execute();
  }

  async getClient(id: string): Promise<OAuthClientRecord | undefined> {
    const row = await this.session.db
      .selectFrom('oauth_clients')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toClient(row);
  }

  async createGrant(grant: OAuthGrantRecord): Promise<void> {
    await this.session.db
      .insertInto('oauth_grants')
      .values({
        id: grant.id,
        client_id: grant.clientId,
        user_id: grant.userId,
        workspace_id: grant.workspaceId,
        scopes: JSON.stringify(grant.scopes),
        created_at: grant.createdAt,
        last_used_at: grant.lastUsedAt,
        revoked_at: grant.revokedAt,
      })
      .execute();
  }

  async getGrant(id: string): Promise<OAuthGrantRecord | undefined> {
    const row = await this.session.db
      .selectFrom('oauth_grants')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toGrant(row);
  }

  async saveCode(code: OAuthCodeRecord): Promise<void> {
    await this.session.db
      .insertInto('oauth_codes')
      .values({
        hash: code.hash,
        grant_id: code.grantId,
        redirect_uri: code.redirectUri,
        code_challenge: code.codeChallenge,
        resource: code.resource,
        expires_at: code.expiresAt,
        used_at: code.usedAt,
      })
      .execute();
  }

  async useCode(hash: string, now: string): Promise<OAuthCodeRecord | undefined> {
    const marked = await this.session.db
      .updateTable('oauth_codes')
      .set({ used_at: now })
      .where('hash', '=', hash)
      .where('used_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (marked) return { ...toCode(marked), usedAt: null };
    // Unknown, or used already: a used code stays used, so this read answers it as this call found it.
    const row = await this.session.db
      .selectFrom('oauth_codes')
      .selectAll()
      .where('hash', '=', hash)
      .executeTakeFirst();
    return row && toCode(row);
  }

  async saveToken(token: OAuthTokenRecord): Promise<void> {
    await this.session.db
      .insertInto('oauth_tokens')
      .values({
        hash: token.hash,
        grant_id: token.grantId,
        kind: token.kind,
        expires_at: token.expiresAt,
        used_at: token.usedAt,
        created_at: token.createdAt,
      })
      .execute();
  }

  async useRefreshToken(hash: string, now: string): Promise<OAuthTokenRecord | undefined> {
    const marked = await this.session.db
      .updateTable('oauth_tokens')
      .set({ used_at: now })
      .where('hash', '=', hash)
      .where('kind', '=', 'refresh')
      .where('used_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    if (marked) return { ...toToken(marked), usedAt: null };
    // Unknown, or used already (see useCode).
    const row = await this.session.db
      .selectFrom('oauth_tokens')
      .selectAll()
      .where('hash', '=', hash)
      .where('kind', '=', 'refresh')
      .executeTakeFirst();
    return row && toToken(row);
  }

  async findToken(
    hash: string,
  ): Promise<{ token: OAuthTokenRecord; grant: OAuthGrantRecord; clientName: string } | undefined> {
    const row = await this.session.db
      .selectFrom('oauth_tokens')
      .innerJoin('oauth_grants', 'oauth_grants.id', 'oauth_tokens.grant_id')
      .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
      .selectAll('oauth_grants')
      .select([
        'oauth_tokens.hash as token_hash',
        'oauth_tokens.kind as token_kind',
        'oauth_tokens.expires_at as token_expires_at',
        'oauth_tokens.used_at as token_used_at',
        'oauth_tokens.created_at as token_created_at',
        'oauth_clients.name as client_name',
      ])
      .where('oauth_tokens.hash', '=', hash)
      .executeTakeFirst();
    if (!row) return undefined;
    const token = toToken({
      hash: row.token_hash,
      grant_id: row.id,
      kind: row.token_kind,
      expires_at: row.token_expires_at,
      used_at: row.token_used_at,
      created_at: row.token_created_at,
    });
    return { token, grant: toGrant(row), clientName: row.client_name };
  }

  async revokeGrant(id: string, now: string): Promise<OAuthGrantRecord | undefined> {
    const row = await this.session.db
      .updateTable('oauth_grants')
      .set({ revoked_at: now })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row && toGrant(row);
  }

  async touchGrant(id: string, now: string): Promise<void> {
    // Forward only, so that uses recorded out of order (several nodes) keep the latest.
    await this.session.db
      .updateTable('oauth_grants')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', now)]))
      .execute();
  }

  async listGrants(workspaceId: string): Promise<ListedOAuthGrant[]> {
    const rows = await this.session.db
      .selectFrom('oauth_grants')
      .innerJoin('oauth_clients', 'oauth_clients.id', 'oauth_grants.client_id')
      .innerJoin('users', 'users.id', 'oauth_grants.user_id')
      .selectAll('oauth_grants')
      .select(['oauth_clients.name as client_name', 'users.email as user_email'])
      .where('oauth_grants.workspace_id', '=', workspaceId)
      .where('oauth_grants.revoked_at', 'is', null)
      .orderBy('oauth_grants.created_at', 'desc')
      .orderBy('oauth_grants.id', 'desc')
      .execute();
    return rows.map((row) => ({ ...toGrant(row), clientName: row.client_name, userEmail: row.user_email }));
  }
}
