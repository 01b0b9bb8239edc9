import { AppError } from '../core/errors.js';

/** The configured database cannot be opened or reached; the message is one line, fit for an operator. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

/** How long clients are asked to wait before retrying (about a reconnect and a timeout). */
const RETRY_AFTER_SECONDS = 5;

export type StoreProblem = 'service_unavailable' | 'storage_full';

const LABELS: Record<StoreProblem, string> = {
  service_unavailable: 'database unavailable',
  storage_full: 'database storage full',
};

/**
 * The database could not do what was asked, for a reason no request can fix: it is unreachable, does not
 * answer in time, refuses connections, or has no space left. Each backend translates its driver's errors
 * to this; the HTTP layer and the CLI render it.
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';

  /**
   * @param reason what happened in a few words (`connection refused`), safe to show a client; the driver's
   *   own message (`cause`) names hosts and files, so only operators see it (logs, the CLI).
   */
  constructor(
    readonly code: StoreProblem,
    readonly reason: string,
    cause: unknown,
  ) {
    super(`${LABELS[code]}: ${reason} (${describeError(cause)})`, { cause });
  }

  /** The problem a client is shown. */
  toAppError(): AppError {
    return this.code === 'service_unavailable'
      ? new AppError(
          'service_unavailable',
          { reason: 'database', cause: this.reason },
          { headers: { 'retry-after': String(RETRY_AFTER_SECONDS) } },
        )
      : new AppError('storage_full', { cause: this.reason });
  }
}

export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** SQLSTATE 23505 (PostgreSQL) and SQLite's codes for a primary key or unique constraint refused. */
const UNIQUE_VIOLATIONS = new Set(['23505', 'SQLITE_CONSTRAINT_PRIMARYKEY', 'SQLITE_CONSTRAINT_UNIQUE']);

/**
 * Whether `error` is an insert refused by a primary key or unique constraint: how a use case learns that a
 * concurrent transaction committed the same row first (PostgreSQL makes the second wait, then refuses it).
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = error instanceof Error ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && UNIQUE_VIOLATIONS.has(code);
}
