import { z } from 'zod';
// zod's messages in this API's words, for every schema: see the module.
import './zod-messages.js';
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

export const NUL_MESSAGE = 'must not contain NUL (\\u0000) characters';

/**
 * Line breaks: CR and LF, and Unicode's line and paragraph separators, at which mail clients, terminals and
 * chat clients may break a line as well.
 */
const LINE_BREAK = /[\r\n\u2028\u2029]/;
/** The other control characters: C0 but tab (NUL has its own word), DEL, and C1 (U+0080–U+009F, NEL among them). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0001-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
export const LINE_BREAK_MESSAGE = 'must be a single line: no line breaks (CR, LF, U+2028 or U+2029)';
export const CONTROL_MESSAGE = 'must not contain control characters (U+0000–U+001F but tab, U+007F–U+009F)';

/**
 * What is wrong with `text` as one line of text (a name, a subject, a header or tag value), or undefined:
 * the one definition of a line break and a control character for every single-line input.
 */
export function singleLineIssue(text: string): string | undefined {
  if (text.includes('\0')) return NUL_MESSAGE;
  if (LINE_BREAK.test(text)) return LINE_BREAK_MESSAGE;
  if (CONTROL.test(text)) return CONTROL_MESSAGE;
  return undefined;
}

/** `schema` refusing anything but one line of text, with singleLineIssue's words. */
export function singleLine<S extends z.ZodString>(schema: S): S {
  return schema.superRefine((text, context) => {
    const issue = singleLineIssue(text);
    if (issue !== undefined) context.addIssue({ code: 'custom', message: issue });
  });
}

/** Inputs shared by the CLI and the HTTP API, so both refuse the same things with the same words. */
export const nameSchema = singleLine(
  z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
);
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

/**
 * Where `value` holds a NUL character (in a string or an object key), as paths of keys and indexes. PostgreSQL text
 * cannot store NUL, and no brand or campaign text needs one, so it is refused as input everywhere. The walk
 * keeps its own stack: a value's depth can never overflow the call stack.
 */
export function nulCharacterPaths(value: unknown): PropertyKey[][] {
  interface Visit {
    value: unknown;
    key: PropertyKey | undefined;
    parent: Visit | undefined;
  }
  // Each visit links to its parent, so a path is built only for what is found: O(size), whatever the depth.
  const pathTo = (visit: Visit, ...last: PropertyKey[]): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.push(at.key);
    return [...path.reverse(), ...last];
  };
  const found: PropertyKey[][] = [];
  const pending: Visit[] = [{ value, key: undefined, parent: undefined }];
  for (let visit = pending.pop(); visit !== undefined; visit = pending.pop()) {
    const item = visit.value;
    if (typeof item === 'string') {
      if (item.includes('\0')) found.push(pathTo(visit));
    } else if (Array.isArray(item)) {
      // Children go on the stack last first, so fields are reported in document order.
      for (let index = item.length - 1; index >= 0; index--)
        pending.push({ value: item[index] as unknown, key: index, parent: visit });
    } else if (typeof item === 'object' && item !== null) {
      const entries = Object.entries(item);
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index] as [string, unknown];
        if (key.includes('\0')) found.push(pathTo(visit, key));
        else pending.push({ value: child, key, parent: visit });
      }
    }
  }
  return found;
}

/** `invalid_request` for `issues`, their fields under `field`; `subject` opens the detail. */
function invalidInput(issues: readonly FieldIssue[], field: string, subject: string): AppError {
  const fields = issues.map((issue) => ({
    field: [field, issue.field].filter(Boolean).join('.'),
    message: issue.message,
  }));
  return new AppError('invalid_request', { reason: 'input', subject, fields });
}

/** Throws `invalid_request` naming each field of `value` that holds a NUL character. */
export function refuseNulCharacters(value: unknown, field = '', subject = 'Invalid input'): void {
  const paths = nulCharacterPaths(value);
  if (paths.length === 0) return;
  const issues = paths.map((path) => ({ field: formatFieldPath(path), message: NUL_MESSAGE }));
  throw invalidInput(issues, field, subject);
}

/** How deeply a JSON body may nest arrays and objects: no document of this service comes near it. */
export const MAX_JSON_DEPTH = 64;

const JSON_STRUCTURE = /[[\]{}"]/g;
/** The rest of a JSON string after its opening quote, escapes included (unrolled: no backtracking). */
const JSON_STRING_REST = /[^"\\]*(?:\\[\s\S][^"\\]*)*"/y;

/**
 * Whether JSON `text` nests arrays and objects deeper than `max`, in one linear scan that stops at the first
 * level too deep. It runs before JSON.parse, which spends about half a second on 2 MB of `[[[[…` and whose
 * result would overflow the call stack of any recursive walk.
 */
export function jsonNestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  JSON_STRUCTURE.lastIndex = 0;
  for (let match = JSON_STRUCTURE.exec(text); match !== null; match = JSON_STRUCTURE.exec(text)) {
    const char = match[0];
    if (char === '"') {
      JSON_STRING_REST.lastIndex = match.index + 1;
      // An unterminated string: not JSON at all, which the parser will say.
      if (!JSON_STRING_REST.test(text)) return false;
      JSON_STRUCTURE.lastIndex = JSON_STRING_REST.lastIndex;
    } else if (char === '[' || char === '{') {
      if (++depth > max) return true;
    } else {
      depth--;
    }
  }
  return false;
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
  const result = schema.safeParse(value);
  if (result.success) {
    // On the parsed value, whose shape the schema bounds, not on whatever the caller sent.
    refuseNulCharacters(result.data, field, subject);
    return result.data;
  }
  throw invalidInput(toFieldIssues(result.error.issues), field, subject);
}
