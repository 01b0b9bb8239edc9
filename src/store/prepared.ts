/**
 * SQL texts that PostgreSQL runs as named prepared statements, parsed and planned once per connection: the
 * key lookup of every read that misses the key cache, where parse and plan cost ~30 % of the round trip.
 * Only queries of an explicit column list belong here: a prepared `select *` fails with "cached plan must not
 * change result type" once another node's migration adds a column. (SQLite caches every statement anyway,
 * src/store/sqlite.ts.)
 */
const names = new Map<string, string>();

export function prepareByName(text: string): void {
  if (!names.has(text)) names.set(text, `brand_context_${String(names.size + 1)}`);
}

/** The statement name of `text`, if it is run prepared. */
export function preparedName(text: string): string | undefined {
  return names.get(text);
}
