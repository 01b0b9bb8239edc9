/** The configured database cannot be opened or reached; the message is one line, fit for an operator. */
export class DatabaseUnavailableError extends Error {
  override readonly name = 'DatabaseUnavailableError';
}

export function describeError(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describeError(error.errors[0]);
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}
