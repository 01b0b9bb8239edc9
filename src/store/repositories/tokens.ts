import type { Selectable } from 'kysely';
import type { Session } from '../session.js';
import type { AccessTokenRecord, Revocation, TokensRepository, UsageStamp } from '../store.js';
import { stampLastUse } from './last-used.js';

export interface AccessTokenColumns {
  id: string;
  user_id: string;
  name: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** A sign-in session signed out before its token expired: refused until then, forgotten after. */
export interface SignedOutSessionColumns {
  id: string;
  expires_at: string;
}

function toAccessToken(row: Selectable<AccessTokenColumns>): AccessTokenRecord {
  return {
    id: row.id,
    userId: row.user_id,
    name: row.name,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  };
}

/** User tokens are verified against the store on every request, so none of these writes is announced. */
export class TokensTables implements TokensRepository {
  constructor(private readonly session: Session) {}

  async create(token: AccessTokenRecord): Promise<void> {
    await this.session.db
      .insertInto('access_tokens')
      .values({
        id: token.id,
        user_id: token.userId,
        name: token.name,
        created_at: token.createdAt,
        expires_at: token.expiresAt,
        revoked_at: token.revokedAt,
        last_used_at: token.lastUsedAt,
      })
      .execute();
  }

  async get(id: string): Promise<AccessTokenRecord | undefined> {
    const row = await this.session.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toAccessToken(row);
  }

  async list(userId: string): Promise<AccessTokenRecord[]> {
    const rows = await this.session.db
      .selectFrom('access_tokens')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .orderBy('id')
      .execute();
    return rows.map(toAccessToken);
  }

  revoke(userId: string, id: string, revokedAt: string): Promise<Revocation<AccessTokenRecord> | undefined> {
    return this.session.write(undefined, async (db) => {
      const { numUpdatedRows } = await db
        .updateTable('access_tokens')
        .set({ revoked_at: revokedAt })
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .where('revoked_at', 'is', null)
        .executeTakeFirst();
      const row = await db
        .selectFrom('access_tokens')
        .selectAll()
        .where('user_id', '=', userId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && { record: toAccessToken(row), revokedNow: numUpdatedRows > 0n };
    });
  }

  touch(stamps: readonly UsageStamp[]): Promise<void> {
    return stampLastUse(this.session, 'access_tokens', stamps);
  }

  async signOutSession(id: string, expiresAt: string, now: string): Promise<void> {
    await this.session.write(undefined, async (db) => {
      await db.deleteFrom('signed_out_sessions').where('expires_at', '<', now).execute();
      await db
        .insertInto('signed_out_sessions')
        .values({ id, expires_at: expiresAt })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    });
  }

  async isSessionSignedOut(id: string): Promise<boolean> {
    const row = await this.session.db
      .selectFrom('signed_out_sessions')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    return row !== undefined;
  }
}
