import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * OAuth for MCP clients connecting by URL (docs/mcp.md): the clients, the grants users give them on a
 * workspace, and the authorization codes and tokens of each grant, stored as SHA-256 hashes only. Deleting
 * a user, a workspace or a client deletes its grants, and a grant's codes and tokens go with it, so nothing
 * issued for them still works.
 */
export async function up(db: AnyDatabase): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';

  await db.schema
    .createTable('oauth_clients')
    // A registered client's generated id, or the https URL of its metadata document.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    // JSON: the redirect URIs, matched exactly; and the client's metadata as registered or fetched.
    .addColumn('redirect_uris', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('registered', 'metadata_document')`))
    .addColumn('metadata', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    // When the metadata document was last fetched (the registration's time for a registered client).
    .addColumn('refreshed_at', timestamp, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('oauth_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('client_id', 'text', (c) => c.notNull().references('oauth_clients.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    // JSON: an array of scopes.
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('last_used_at', timestamp)
    .addColumn('revoked_at', timestamp)
    .execute();
  // A workspace's connected apps, newest first; and a user's grants, which go when the account does.
  await db.schema
    .createIndex('oauth_grants_workspace_idx')
    .on('oauth_grants')
    .columns(['workspace_id', 'created_at'])
    .execute();
  await db.schema.createIndex('oauth_grants_user_idx').on('oauth_grants').column('user_id').execute();

  await db.schema
    .createTable('oauth_codes')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('redirect_uri', 'text', (c) => c.notNull())
    // The PKCE S256 challenge the token request's verifier must answer.
    .addColumn('code_challenge', 'text', (c) => c.notNull())
    .addColumn('resource', 'text', (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('used_at', timestamp)
    .execute();
  await db.schema.createIndex('oauth_codes_grant_idx').on('oauth_codes').column('grant_id').execute();

  await db.schema
    .createTable('oauth_tokens')
    .addColumn('hash', 'text', (c) => c.primaryKey())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('oauth_grants.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('access', 'refresh')`))
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    // A refresh token's one use (they rotate): a second use is a replay.
    .addColumn('used_at', timestamp)
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('oauth_tokens_grant_idx').on('oauth_tokens').column('grant_id').execute();
}
