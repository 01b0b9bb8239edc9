import { AppError } from '../../core/errors.js';
import type { ListPosition } from '../../store/store.js';

/**
 * Listing positions handed to clients as opaque `next_cursor`s: a JSON value in base64url. What a cursor
 * holds is the listing's business; that a client sends one back unchanged is checked here.
 */
export function encodeCursor(position: unknown): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/**
 * The position `cursor` holds, as `read` accepts it (undefined: not a position of this listing); a cursor this
 * API did not issue answers 400 `invalid_request` naming the field.
 */
export function decodeCursor<T>(cursor: string, read: (decoded: unknown) => T | undefined): T {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString());
  } catch {
    // Not JSON: refused below like any other cursor this API did not issue.
  }
  const position = decoded === undefined ? undefined : read(decoded);
  if (position === undefined) {
    throw new AppError(
      'invalid_request',
      { reason: 'cursor' },
      { fields: [{ field: 'cursor', message: 'is not a cursor from a previous page' }] },
    );
  }
  return position;
}

/** A timestamp exactly as this API writes one; PostgreSQL would fail (500) on anything it cannot parse. */
function isIsoTimestamp(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && new Date(ms).toISOString() === value;
}

/** An id's characters (a prefix, `_` and base62): nothing a database could refuse, such as a NUL. */
const CURSOR_ID = /^[A-Za-z0-9_]{1,128}$/;

/** The position of listings ordered newest first by (created_at, id): `[createdAt, id]` of the last shown. */
function readListPosition(decoded: unknown): ListPosition | undefined {
  if (!Array.isArray(decoded) || decoded.length !== 2) return undefined;
  const [createdAt, id] = decoded as unknown[];
  return isIsoTimestamp(createdAt) && typeof id === 'string' && CURSOR_ID.test(id)
    ? { createdAt, id }
    : undefined;
}

/**
 * One page of a time-ordered listing, newest first. `list` is asked for one record more than the page holds:
 * whether it comes says if another page follows, so the last page is never an empty one.
 */
export async function timeOrderedPage<R extends ListPosition>(
  page: { limit: number; cursor?: string | undefined },
  list: (after: ListPosition | undefined, limit: number) => Promise<R[]>,
): Promise<{ records: R[]; next_cursor: string | null }> {
  const after = page.cursor === undefined ? undefined : decodeCursor(page.cursor, readListPosition);
  const records = await list(after, page.limit + 1);
  const shown = records.slice(0, page.limit);
  const last = shown.at(-1);
  return {
    records: shown,
    next_cursor: records.length > page.limit && last ? encodeCursor([last.createdAt, last.id]) : null,
  };
}
