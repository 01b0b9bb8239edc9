import type { IncomingMessage } from 'node:http';
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

/** Bodies up to this long may take the quick parse: the read operation's are well under it. */
const QUICK_JSON_LENGTH = 4096;

/**
 * The usual body, parsed with plain JSON.parse: one that cannot nest too deep (few brackets) and cannot name a
 * prototype key (no `__proto__`, no `constructor`, no escape that could spell either). Anything else, and any
 * text that is not JSON, is undefined here and takes the full path below, whose answers (errors included)
 * stay the only ones. Saves the nesting scan and secure-json-parse's checks on every read.
 */
function parsedAtOnce(text: string): { value: unknown } | undefined {
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

/**
 * A JSON body's value as every route takes it (prototype poisoning refused), after a linear check of its
 * nesting: a body nested deeper than MAX_JSON_DEPTH is refused before JSON.parse spends time on it. Throws
 * the refusal (an AppError, or Fastify's own JSON errors, which src/http/problem.ts maps).
 */
export function jsonBodyParser(app: FastifyInstance): (text: string) => unknown {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  return (text) => {
    const parsed = parsedAtOnce(text);
    if (parsed !== undefined) return parsed.value;
    if (jsonNestsDeeperThan(text, MAX_JSON_DEPTH))
      throw new AppError('invalid_request', { reason: 'too_deep', maxDepth: MAX_JSON_DEPTH });
    let result: { error: Error | null; value: unknown } = { error: null, value: undefined };
    // Fastify's parser answers at once, through its callback.
    void parseJson(undefined as never, text, (error, value) => {
      result = { error, value };
    });
    if (result.error) throw result.error;
    return result.value;
  };
}

/** JSON bodies, as `jsonBodyParser` takes them, for every route that lets Fastify read its body. */
export function parseJsonBodies(app: FastifyInstance): void {
  const parse = jsonBodyParser(app);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parse(body.toString())); // already a string: parseAs 'string'
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

/**
 * The small body of a request answered below the router (the read operation: src/http/routes/brand-agent.ts),
 * read from the moment the request arrives, while its handler checks what comes before the body. Refused as
 * Fastify's parser refuses one: a Content-Length over `limit` bytes is never read (413), nor is more than
 * `limit` (413); a body cut short by its client is 400. Read in paused mode ('readable'), which costs a read
 * fewer instructions than flowing mode ('data'), and taken whole as soon as Content-Length bytes came.
 */
export class SmallBody {
  private readonly chunks: Buffer[] = [];
  private length = 0;
  /** The Content-Length, if sent (NaN otherwise): the body is whole once that many bytes came, before 'end'. */
  private readonly expected: number;
  private outcome: string | AppError | undefined;
  private waiting: ((outcome: string | AppError) => void) | undefined;

  constructor(
    private readonly request: IncomingMessage,
    private readonly limit: number,
  ) {
    this.expected = Number(request.headers['content-length']);
    if (this.expected > limit) {
      this.outcome = tooLarge();
      return;
    }
    request.on('readable', this.onReadable).on('end', this.onEnd).on('error', this.onError);
  }

  /** Calls `then` with the body's text once it is whole (now, if it is), or with its refusal. */
  whenWhole(then: (text: string | AppError) => void): void {
    if (this.outcome !== undefined) {
      then(this.outcome);
      return;
    }
    const earlier = this.waiting;
    this.waiting = (outcome) => {
      earlier?.(outcome);
      then(outcome);
    };
  }

  /** The body's text once it is whole, or the promise's refusal. */
  text(): Promise<string> {
    return new Promise((resolve, reject) => {
      this.whenWhole((outcome) => {
        if (typeof outcome === 'string') resolve(outcome);
        else reject(outcome);
      });
    });
  }

  private readonly onReadable = (): void => {
    for (let chunk: unknown = this.request.read(); chunk !== null; chunk = this.request.read()) {
      this.length += (chunk as Buffer).length;
      if (this.length > this.limit) {
        this.settle(tooLarge());
        return;
      }
      this.chunks.push(chunk as Buffer);
    }
    if (this.length === this.expected) this.onEnd();
  };

  private readonly onEnd = (): void => {
    const [only] = this.chunks;
    const body = this.chunks.length === 1 && only ? only : Buffer.concat(this.chunks, this.length);
    this.settle(body.toString());
  };

  private readonly onError = (): void => {
    this.settle(new AppError('invalid_request', { reason: 'unreadable' }, CLOSING));
  };

  private settle(outcome: string | AppError): void {
    this.request.off('readable', this.onReadable).off('end', this.onEnd).off('error', this.onError);
    this.outcome = outcome;
    this.waiting?.(outcome);
  }
}

/**
 * A body refused before it was read whole closes the connection after the answer, as Fastify's parser does:
 * its client may still be sending it.
 */
const CLOSING = { headers: { connection: 'close' } };

function tooLarge(): AppError {
  return new AppError('payload_too_large', { reason: 'body' }, CLOSING);
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
