import type { Selectable } from 'kysely';
import type { Session } from '../session.js';
import type { UserRecord, UsersRepository } from '../store.js';

export interface UserColumns {
  id: string;
  email: string;
  password_hash: string | null;
  created_at: string;
}

function toUser(row: Selectable<UserColumns>): UserRecord {
  return { id: row.id, email: row.email, passwordHash: row.password_hash, createdAt: row.created_at };
}

/**
 * Users are an aggregate of their own rather than part of workspaces: an account exists before and beyond
 * any membership (sign-in, personal tokens, an identity provider's users), in any number of workspaces.
 */
export class UsersTable implements UsersRepository {
  constructor(private readonly session: Session) {}

  async create(user: UserRecord): Promise<void> {
    await this.session.db
      .insertInto('users')
      .values({
        id: user.id,
        email: user.email,
        password_hash: user.passwordHash,
        created_at: user.createdAt,
      })
      .execute();
  }

  async get(id: string): Promise<UserRecord | undefined> {
    const row = await this.session.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
    return row && toUser(row);
  }

  async findByEmail(email: string): Promise<UserRecord | undefined> {
    const row = await this.session.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', email)
      .executeTakeFirst();
    return row && toUser(row);
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.session.db
      .updateTable('users')
      .set({ password_hash: passwordHash })
      .where('id', '=', userId)
      .execute();
  }
}
