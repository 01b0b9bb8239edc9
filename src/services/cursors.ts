import { AppError } from '../core/errors.js';

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
