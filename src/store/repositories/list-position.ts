import { type Expression, type ExpressionBuilder, type SqlBool, sql, type StringReference } from 'kysely';
import type { ListPosition } from '../store.js';

/**
 * The rows listed after `after` in a listing ordered newest first by (created_at, id). A row-value
 * comparison, `(created_at, id) < (…, …)`: both databases answer it as a range of an index that ends in
 * those columns, where the equivalent `created_at < … or (created_at = … and id < …)` makes SQLite read the
 * listing's whole part of the index.
 */
export function listedAfter<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  createdAt: StringReference<DB, TB>,
  id: StringReference<DB, TB>,
  after: ListPosition,
): Expression<SqlBool> {
  return sql<SqlBool>`(${eb.ref(createdAt)}, ${eb.ref(id)}) < (${after.createdAt}, ${after.id})`;
}
