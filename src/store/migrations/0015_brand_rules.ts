import { type Kysely, PostgresAdapter } from 'kysely';

/* Migrations see the database as it was when they were written, not today's schema types. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * Brand rules (docs/brand-check.md): the `rules` section of the brand, JSON text on the brand's profile row
 * like `preferences` (a list read and written whole, never queried by its entries). Existing brands have
 * none: the default fills them, nothing is backfilled. Their recorded versions lack the section; the
 * repository reads them with `rules: []` (src/store/repositories/brand.ts, getVersion).
 */
export async function up(db: AnyDatabase): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // json, not jsonb, as in 0001: the brand context keeps its documented key order.
  const json = postgres ? 'json' : 'text';
  await db.schema
    .alterTable('brand_profiles')
    .addColumn('rules', json, (c) => c.notNull().defaultTo('[]'))
    .execute();
}
