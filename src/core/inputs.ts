import { z } from 'zod';
import { AppError, type FieldIssue } from './errors.js';
import { ROLES } from './roles.js';

export function formatFieldPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, segment) => {
    if (typeof segment === 'number') return `${out}[${segment}]`;
    return out === '' ? String(segment) : `${out}.${String(segment)}`;
  }, '');
}

/** zod issues as `{ field, message }` pairs naming the exact field, one per offending field. */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  return issues.flatMap((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: formatFieldPath([...issue.path, key]),
        message: 'is not a known field',
      }));
    }
    if (issue.code === 'invalid_key') {
      // A record key that fails its own schema: report that schema's advice, not zod's generic "Invalid key".
      return issue.issues.map((inner) => ({ field: formatFieldPath(issue.path), message: inner.message }));
    }
    return [{ field: formatFieldPath(issue.path), message: issue.message }];
  });
}

/** Inputs shared by the CLI and the HTTP API, so both refuse the same things with the same words. */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(200, 'must be at most 200 characters');
export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(320, 'must be at most 320 characters')
  .pipe(z.email('must be an email address'));
export const passwordSchema = z
  .string()
  .min(12, 'must be at least 12 characters')
  .max(1024, 'must be at most 1024 characters');
export const roleSchema = z.enum(ROLES);
/** Personal access tokens live at most 90 days, like brand read keys. */
export const MAX_TOKEN_DAYS = 90;
export const tokenDaysSchema = z.number().int().min(1).max(MAX_TOKEN_DAYS);

export const NUL_MESSAGE = 'must not contain NUL (\\u0000) characters';

/**
 * Where `value` holds a NUL character (in a string or an object key), as field paths. PostgreSQL text
 * cannot store NUL, and no brand or campaign text needs one, so it is refused as input everywhere.
 */
export function nulCharacterFields(value: unknown, path: PropertyKey[] = []): string[] {
  if (typeof value === 'string') return value.includes('\0') ? [formatFieldPath(path)] : [];
  if (Array.isArray(value))
    return value.flatMap((item: unknown, index) => nulCharacterFields(item, [...path, index]));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]: [string, unknown]) =>
    key.includes('\0') ? [formatFieldPath([...path, key])] : nulCharacterFields(item, [...path, key]),
  );
}

/** Throws `invalid_request` naming each field of `value` that holds a NUL character. */
export function refuseNulCharacters(value: unknown, field = '', subject = 'Invalid input'): void {
  const fields = nulCharacterFields(value).map((path) => ({
    field: [field, path].filter(Boolean).join('.'),
    message: NUL_MESSAGE,
  }));
  if (fields.length === 0) return;
  const summary = fields.map((issue) => `${issue.field || 'body'} ${issue.message}`).join('; ');
  throw new AppError('invalid_request', `${subject}: ${summary}.`, fields);
}

/**
 * Parses `value` or throws `invalid_request` naming each offending field (`field` prefixes the paths;
 * `subject` opens the detail).
 */
export function parseInput<T extends z.ZodType>(
  schema: T,
  value: unknown,
  field = '',
  subject = 'Invalid input',
): z.output<T> {
  refuseNulCharacters(value, field, subject);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = toFieldIssues(result.error.issues).map((issue) => ({
    field: [field, issue.field].filter(Boolean).join('.'),
    message: issue.message,
  }));
  const summary = fields.map((issue) => `${issue.field || 'body'} ${issue.message}`).join('; ');
  throw new AppError('invalid_request', `${subject}: ${summary}.`, fields);
}
