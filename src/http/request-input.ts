import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { AppError } from '../core/errors.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, NUL_MESSAGE, nulCharacterPaths } from '../core/inputs.js';

/** `{` and `[` in a text: a bound on its nesting (brackets in strings count too, which only overestimates it). */
function openingBrackets(text: string, max: number): number {
  let count = 0;
  for (const bracket of ['{', '[']) {
    for (let at = text.indexOf(bracket); at !== -1 && count <= max; at = text.indexOf(bracket, at + 1))
      count++;
  }
  return count;
}

/**
 * The usual body, parsed with plain JSON.parse: one that cannot nest too deep (few brackets) and cannot name a
 * prototype key (no `__proto__`, no `constructor`, no escape that could spell either). Anything else, and any
 * text that is not JSON, is undefined here and takes the full path below, whose answers (errors included)
 * stay the only ones. Saves the nesting scan and secure-json-parse's checks on every read.
 */
export function parsedAtOnce(text: string): { value: unknown } | undefined {
  if (
    text.length > QUICK_JSON_LENGTH ||
    text.includes('\\') ||
    text.includes('__proto__') ||
    text.includes('constructor') ||
    openingBrackets(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH
  )
    return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** Bodies up to this long may take the quick parse: the read operation's are well under it. */
export const QUICK_JSON_LENGTH = 4096;

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), after a linear check of their nesting:
 * a body nested deeper than MAX_JSON_DEPTH is refused before JSON.parse spends time on it.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString(); // already a string: parseAs 'string'
    const parsed = parsedAtOnce(text);
    if (parsed !== undefined) {
      done(null, parsed.value);
      return;
    }
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new AppError('invalid_request', { reason: 'too_deep', maxDepth: MAX_JSON_DEPTH }), undefined);
      return;
    }
    void parseJson(request, text, done); // calls done itself
  });
}

/** Per body schema, the check of its route's usual body (`withUsualBody`). */
const usualBodies = new WeakMap<z.ZodType, (data: unknown) => boolean>();

/**
 * `schema`, with `isUsual` recognising the route's usual body: a body it accepts is taken as parsed, without
 * the schema's parse or the NUL walk. `isUsual` must accept only bodies the schema passes unchanged, with
 * no NUL character; every other body is validated in full, so every error stays the schema's own.
 */
export function withUsualBody<T extends z.ZodType>(schema: T, isUsual: (data: unknown) => boolean): T {
  usualBodies.set(schema, isUsual);
  return schema;
}

/**
 * The zod validator, then, for bodies, a NUL check of what it accepted: PostgreSQL text cannot hold NUL, so it
 * is refused with 400 naming the field on both backends. Checking the validated value (bounded by its schema),
 * not the raw input, keeps the walk small, and validation runs after authorization, so a caller who may not
 * use the route never costs more than parsing. Paths and queries are checked before authorization instead
 * (src/http/routes/index.ts), since authorization looks them up.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = (route) => {
  const validate = zodValidatorCompiler(route);
  if (route.httpPart !== 'body') return validate;
  const usual = usualBodies.get(route.schema);
  return (data: unknown) => {
    if (usual?.(data)) return { value: data };
    const result = validate(data) as { value?: unknown; error?: FastifySchemaValidationError[] };
    if (result.error) return result;
    const paths = nulCharacterPaths(result.value);
    if (paths.length === 0) return result;
    return {
      error: paths.map((path) => ({
        keyword: 'custom',
        // The JSON pointer that the problem's field names are made from (src/http/problem.ts).
        instancePath: path.map((segment) => `/${String(segment)}`).join(''),
        schemaPath: '',
        params: {},
        message: NUL_MESSAGE,
      })),
    };
  };
};
