import { type Kysely, PostgresAdapter, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

const EMAIL_STATUS_CHECK = sql`status in ('queued', 'deferred', 'sent', 'bounced', 'failed', 'suppressed', 'captured')`;

/**
 * Transactional email (docs/email.md "Transactional email") and account email (invites, password resets): keys,
 * allowed senders, messages with one queue job per recipient, their events, suppressions, idempotency keys,
 * and the one-time tokens of account links. No secret is stored as it is shown: keys and tokens as SHA-256,
 * message bodies sealed like webhook secrets (they may carry a customer's or an account's one-time link).
 */
export async function up(db: AnyDatabase): Promise<void> {
  const timestamp = db.getExecutor().adapter instanceof PostgresAdapter ? 'timestamptz' : 'text';

  // Transactional email keys: the columns of every key kind, but no expiry unless the operator asks for one.
  await db.schema
    .createTable('email_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_by', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('expires_at', timestamp)
    .addColumn('revoked_at', timestamp)
    .addColumn('last_used_at', timestamp)
    .execute();
  await db.schema.createIndex('email_keys_workspace_idx').on('email_keys').column('workspace_id').execute();
  await db.schema.createIndex('email_keys_expires_idx').on('email_keys').column('expires_at').execute();

  // An address (`news@example.com`) or a whole domain (`example.com`), lower case.
  await db.schema
    .createTable('email_senders')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('sender', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('email_senders_pk', ['workspace_id', 'sender'])
    .execute();

  // No workspace: account email that belongs to none (a password reset).
  await db.schema
    .createTable('email_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('cascade'))
    .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('api', 'account')`))
    .addColumn('from_address', 'text', (c) => c.notNull())
    // JSON: the To and Cc headers as sent (Bcc is never a header), Reply-To, the X- headers, the tags.
    .addColumn('to_header', 'text', (c) => c.notNull())
    .addColumn('cc_header', 'text', (c) => c.notNull())
    .addColumn('reply_to', 'text', (c) => c.notNull())
    .addColumn('headers', 'text', (c) => c.notNull())
    .addColumn('tags', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    // {"html","text"}, sealed (src/services/shared/secret-box.ts).
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(EMAIL_STATUS_CHECK))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_messages_workspace_created_idx')
    .on('email_messages')
    .columns(['workspace_id', 'created_at', 'id'])
    .execute();

  // One job of the delivery queue per recipient: each is sent, deferred and retried, or bounced on its own.
  await db.schema
    .createTable('email_recipients')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('email_messages.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('field', 'text', (c) => c.notNull().check(sql`field in ('to', 'cc', 'bcc')`))
    .addColumn('status', 'text', (c) => c.notNull().check(EMAIL_STATUS_CHECK))
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // Set while an attempt is due or in flight; null once the recipient is settled.
    .addColumn('next_attempt_at', timestamp)
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', timestamp)
    .addColumn('last_response', 'text')
    .addColumn('updated_at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_recipients_due_idx')
    .on('email_recipients')
    .column('next_attempt_at')
    .execute();
  await db.schema
    .createIndex('email_recipients_message_idx')
    .on('email_recipients')
    .columns(['message_id', 'position'])
    .execute();

  await db.schema
    .createTable('email_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('email_messages.id').onDelete('cascade'))
    .addColumn('recipient', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('detail', 'text')
    .addColumn('at', timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_events_message_idx')
    .on('email_events')
    .columns(['message_id', 'at'])
    .execute();

  await db.schema
    .createTable('email_suppressions')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull().check(sql`reason in ('bounced')`))
    .addColumn('detail', 'text')
    .addColumn('message_id', 'text')
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('email_suppressions_pk', ['workspace_id', 'email'])
    .execute();

  // An Idempotency-Key names one request per workspace for 24 hours; the primary key settles a race.
  await db.schema
    .createTable('email_idempotency_keys')
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    // SHA-256 of the request: the same key with another body is refused, not answered with the first.
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('email_idempotency_keys_pk', ['workspace_id', 'key'])
    .execute();

  // Invite and password-reset links: SHA-256 of the token, used once, expiring.
  await db.schema
    .createTable('account_tokens')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('purpose', 'text', (c) => c.notNull().check(sql`purpose in ('invite', 'password_reset')`))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('workspace_id', 'text', (c) => c.references('workspaces.id').onDelete('cascade'))
    .addColumn('created_at', timestamp, (c) => c.notNull())
    .addColumn('expires_at', timestamp, (c) => c.notNull())
    .addColumn('used_at', timestamp)
    .addColumn('replaced_at', timestamp)
    .addColumn('message_id', 'text', (c) => c.references('email_messages.id').onDelete('set null'))
    .execute();
  await db.schema.createIndex('account_tokens_user_idx').on('account_tokens').column('user_id').execute();
}
