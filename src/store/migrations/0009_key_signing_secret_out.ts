import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * The secret that signed brand read keys was kept in `settings`, so a copy of the database could make keys that
 * worked. It now lives outside the database (docs/keys.md "Brand read keys"), and the old one is deleted: keys it
 * signed still work, looked up by their rows like unsigned keys, and nobody can make new ones with it.
 */
export async function up(db: AnyDatabase): Promise<void> {
  await db.deleteFrom('settings').where('name', '=', 'key_signing_secret').execute();
}
