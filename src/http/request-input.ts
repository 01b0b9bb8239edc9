import type { FastifyInstance, FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { validatorCompiler as zodValidatorCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import { AppError } from '../core/errors.js';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH, NUL_MESSAGE, nulCharacterPaths } from '../core/inputs.js';

/**
 * JSON bodies as Fastify parses them (prototype poisoning refused), after a linear check of their nesting:
 * a body nested deeper than MAX_JSON_DEPTH is refused before JSON.parse spends time on it.
 */
export function parseJsonBodies(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString(); // already a string: parseAs 'string'
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH)) {
      done(new AppError('invalid_request', { reason: 'too_deep', maxDepth: MAX_JSON_DEPTH }), undefined);
      return;
    }
    void parseJson(request, text, done); // calls done itself
  });
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
  return (data) => {
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
