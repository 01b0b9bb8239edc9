import type { Session } from '../session.js';
import type { SettingsRepository } from '../store.js';

export interface SettingColumns {
  name: string;
  value: string;
}

export class SettingsTable implements SettingsRepository {
  constructor(private readonly session: Session) {}

  async getOrCreate(name: string, value: string): Promise<string> {
    const { db } = this.session;
    await db
      .insertInto('settings')
      .values({ name, value })
      .onConflict((oc) => oc.column('name').doNothing())
      .execute();
    const row = await db
      .selectFrom('settings')
      .select('value')
      .where('name', '=', name)
      .executeTakeFirstOrThrow();
    return row.value;
  }
}
