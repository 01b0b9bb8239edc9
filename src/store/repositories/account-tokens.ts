import type { Selectable } from 'kysely';
import type { Session } from '../session.js';
import type { AccountTokenRecord, AccountTokensRepository, LinkEnding, PendingInvite } from '../store.js';

export interface AccountTokenColumns {
  id: string;
  /** SHA-256 of the token in the link: the token itself is never stored. */
  token_hash: string;
  purpose: AccountTokenRecord['purpose'];
  user_id: string;
  workspace_id: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
  replaced_at: string | null;
  /** The email that carried the link. */
  message_id: string | null;
}

function toAccountToken(row: Selectable<AccountTokenColumns>): AccountTokenRecord {
  return {
    id: row.id,
    tokenHash: row.token_hash,
    purpose: row.purpose,
    userId: row.user_id,
    workspaceId: row.workspace_id,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    replacedAt: row.replaced_at,
    messageId: row.message_id,
  };
}

/** What ending a link writes: a replaced one keeps its expiry, so that it can say it was replaced. */
function ended(ending: LinkEnding, at: string) {
  return ending === 'replaced' ? { replaced_at: at } : { expires_at: at };
}

/** The one-time tokens of invite and password-reset links (docs/account-email.md "Account email"). */
export class AccountTokensTable implements AccountTokensRepository {
  constructor(private readonly session: Session) {}

  async create(token: AccountTokenRecord): Promise<void> {
    await this.session.db
      .insertInto('account_tokens')
      .values({
        id: token.id,
        token_hash: token.tokenHash,
        purpose: token.purpose,
        user_id: token.userId,
        workspace_id: token.workspaceId,
        created_at: token.createdAt,
        expires_at: token.expiresAt,
        used_at: token.usedAt,
        replaced_at: token.replacedAt,
        message_id: token.messageId,
      })
      .execute();
  }

  async findByHash(tokenHash: string): Promise<AccountTokenRecord | undefined> {
    const row = await this.session.db
      .selectFrom('account_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .executeTakeFirst();
    return row && toAccountToken(row);
  }

  async use(id: string, usedAt: string): Promise<boolean> {
    // The condition on used_at makes two uses at once a race that one of them wins.
    const result = await this.session.db
      .updateTable('account_tokens')
      .set({ used_at: usedAt })
      .where('id', '=', id)
      .where('used_at', 'is', null)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async expireUnused(
    userId: string,
    purpose: AccountTokenRecord['purpose'],
    at: string,
    ending: LinkEnding,
  ): Promise<void> {
    await this.session.db
      .updateTable('account_tokens')
      .set(ended(ending, at))
      .where('user_id', '=', userId)
      .where('purpose', '=', purpose)
      .where('used_at', 'is', null)
      .where('replaced_at', 'is', null)
      .where('expires_at', '>', at)
      .execute();
  }

  async expireInvites(userId: string, workspaceId: string, at: string, ending: LinkEnding): Promise<void> {
    await this.session.db
      .updateTable('account_tokens')
      .set(ended(ending, at))
      .where('user_id', '=', userId)
      .where('workspace_id', '=', workspaceId)
      .where('purpose', '=', 'invite')
      .where('used_at', 'is', null)
      .where('replaced_at', 'is', null)
      .where('expires_at', '>', at)
      .execute();
  }

  async pendingInvites(workspaceId: string): Promise<PendingInvite[]> {
    const rows = await this.session.db
      .selectFrom('account_tokens')
      .innerJoin('users', 'users.id', 'account_tokens.user_id')
      // Account email has one recipient: its status is the invite's delivery.
      .leftJoin('email_recipients', 'email_recipients.message_id', 'account_tokens.message_id')
      .selectAll('account_tokens')
      .select([
        'email_recipients.status as delivery_status',
        'email_recipients.last_response as delivery_detail',
      ])
      .where('account_tokens.workspace_id', '=', workspaceId)
      .where('account_tokens.purpose', '=', 'invite')
      .where('account_tokens.used_at', 'is', null)
      .where('users.password_hash', 'is', null)
      .orderBy('account_tokens.created_at', 'desc')
      .orderBy('account_tokens.id', 'desc')
      .execute();
    // Newest first, so the first of each user is their newest.
    const newest = new Map<string, PendingInvite>();
    for (const row of rows) {
      if (newest.has(row.user_id)) continue;
      const delivery =
        row.delivery_status === null ? null : { status: row.delivery_status, detail: row.delivery_detail };
      newest.set(row.user_id, { ...toAccountToken(row), delivery });
    }
    return [...newest.values()];
  }
}
