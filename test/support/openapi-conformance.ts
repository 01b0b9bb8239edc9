import type { IncomingMessage, OutgoingHttpHeader, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { FastifyInstance } from 'fastify';

/*
 * Every response a test app gives is checked against the app's own API reference (GET /openapi.json): the
 * operation its method and path name must document its status, its media type and, with a JSON Schema 2020-12
 * validator, its body. So the document cannot drift from what the service answers (docs/api-reference.md).
 * test/support/app.ts records each app; test/support/openapi-conformance.setup.ts fails a test file whose
 * responses the document does not describe.
 */

interface MediaType {
  schema?: unknown;
}
interface DocumentedResponse {
  description?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, DocumentedResponse>;
}
export interface OpenApiDocument {
  info?: { description?: string };
  paths?: Record<string, Record<string, Operation>>;
}

/** One operation's path, split: literal segments, and undefined where a parameter stands. */
interface PathTemplate {
  path: string;
  segments: (string | undefined)[];
  literals: number;
}

/** A document ready to check responses against: its paths by specificity, its schemas compiled on demand. */
interface Checker {
  document: OpenApiDocument;
  templates: PathTemplate[];
  ajv: Ajv2020;
  validators: Map<string, ValidateFunction>;
}

/** What the responses of the current test file came to. */
export interface ConformanceTally {
  /** Responses to a documented operation, checked. */
  validated: number;
  /** Responses to requests no operation of the document names (console pages, unknown paths, other methods). */
  outside: number;
  /** What the document does not describe, one line per response. */
  failures: string[];
}

const DOCUMENT_ID = 'https://brand-context.invalid/openapi.json';
/** Bodies above this are counted, not checked: no documented answer is near it. */
const MAX_RECORDED_BYTES = 8 * 1024 * 1024;

/** Answers given since the last tally, each with the document of the app that gave it. */
let answers: { answer: Answer; checker: () => Checker }[] = [];

/**
 * Checks the answers given since the last call (test/support/openapi-conformance.setup.ts calls it once per
 * test file, after the file's apps have closed): what the document does not describe, and how many were checked.
 */
export function takeTally(): ConformanceTally {
  const taken = answers;
  answers = [];
  const tally: ConformanceTally = { validated: 0, outside: 0, failures: [] };
  for (const { answer, checker } of taken) {
    try {
      const verdict = check(checker(), answer);
      if (verdict === OUTSIDE) tally.outside += 1;
      else {
        tally.validated += 1;
        if (verdict !== undefined) tally.failures.push(verdict);
      }
    } catch (error) {
      tally.validated += 1;
      tally.failures.push(`${answer.method} ${answer.url}: could not be checked: ${String(error)}`);
    }
  }
  return tally;
}

/** Checkers by the document's text: the apps of a worker mostly serve the same document, compiled once. */
const checkersByText = new Map<string, Checker>();
const checkersByDocument = new WeakMap<OpenApiDocument, Checker>();

function checkerFor(document: OpenApiDocument): Checker {
  const same = checkersByDocument.get(document);
  if (same) return same;
  const text = JSON.stringify(document);
  const known = checkersByText.get(text);
  if (known) {
    checkersByDocument.set(document, known);
    return known;
  }
  // The document as a client receives it (JSON), not the objects the app built it from.
  const served = JSON.parse(text) as OpenApiDocument;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(served, DOCUMENT_ID);
  const templates = Object.keys(served.paths ?? {})
    .map((path): PathTemplate => {
      const segments = path.split('/').map((segment) => (/^\{[^}]+\}$/.test(segment) ? undefined : segment));
      return { path, segments, literals: segments.filter((s) => s !== undefined).length };
    })
    // `/a/current` before `/a/{id}`: the most literal template that fits is the route's.
    .sort((a, b) => b.literals - a.literals);
  const checker: Checker = { document: served, templates, ajv, validators: new Map() };
  checkersByText.set(text, checker);
  checkersByDocument.set(document, checker);
  return checker;
}

function templateOf(checker: Checker, url: string): string | undefined {
  const segments = (url.split('?')[0] ?? '').split('/');
  return checker.templates.find(
    (template) =>
      template.segments.length === segments.length &&
      template.segments.every((literal, index) =>
        literal === undefined ? segments[index] !== '' : literal === segments[index],
      ),
  )?.path;
}

/** A JSON pointer token (RFC 6901). */
function token(part: string): string {
  return part.replace(/~/g, '~0').replace(/\//g, '~1');
}

function validatorOf(checker: Checker, pointer: string): ValidateFunction {
  let validate = checker.validators.get(pointer);
  if (!validate) {
    validate = checker.ajv.getSchema(`${DOCUMENT_ID}#${pointer}`);
    if (!validate) throw new Error(`the document has no schema at ${pointer}`);
    checker.validators.set(pointer, validate);
  }
  return validate;
}

/** A JSON Schema 2020-12 validator of `document`'s schema at `pointer` (e.g. `/components/schemas/BrandContext`). */
export function schemaAt(document: OpenApiDocument, pointer: string): (value: unknown) => boolean {
  const validate = validatorOf(checkerFor(document), pointer);
  return (value) => validate(value);
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType.endsWith('+json');
}

/**
 * Problems the document says any request may answer before it reaches an operation ("400 `bad_request`",
 * "503 `service_unavailable`"… in its description).
 */
function describedForEveryRequest(document: OpenApiDocument, status: number, body: unknown): boolean {
  const code = (body as { code?: unknown } | null)?.code;
  return (
    typeof code === 'string' && (document.info?.description ?? '').includes(`${String(status)} \`${code}\``)
  );
}

/** One response as it was sent. */
export interface Answer {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  body: Buffer;
  truncated: boolean;
}

/** An answer to a request that no operation of the document names. */
export const OUTSIDE = 'outside of every operation';

/**
 * What `document` says of one answer: nothing when it describes it, OUTSIDE when no operation is asked, else
 * why not.
 */
export function describesAnswer(document: OpenApiDocument, answer: Answer): string | undefined {
  return check(checkerFor(document), answer);
}

function check(checker: Checker, answer: Answer): string | undefined {
  const { document } = checker;
  const path = templateOf(checker, answer.url);
  // HEAD is GET without the body (Fastify answers it for every GET route).
  const method = answer.method === 'HEAD' ? 'get' : answer.method.toLowerCase();
  const operation = path === undefined ? undefined : document.paths?.[path]?.[method];
  if (path === undefined || operation === undefined) return OUTSIDE;
  const name = `${answer.method} ${path} ${String(answer.status)}`;
  const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase();
  const hasBody = answer.body.length > 0 && answer.method !== 'HEAD';
  let body: unknown = answer.body.toString('utf8');
  if (hasBody && mediaType !== undefined && isJsonMediaType(mediaType)) {
    try {
      body = JSON.parse(body as string);
    } catch {
      return `${name}: the ${mediaType} body is not JSON`;
    }
  }
  const status = String(answer.status);
  const documented = operation.responses?.[status];
  if (documented === undefined) {
    if (describedForEveryRequest(document, answer.status, body)) return undefined;
    return `${name}: status not documented (body ${answer.body.toString('utf8').slice(0, 200)})`;
  }
  const content = documented.content;
  if (!hasBody) {
    if (content === undefined || answer.method === 'HEAD') return undefined;
    return `${name}: no body, but the document gives it ${Object.keys(content).join(', ')}`;
  }
  if (content === undefined) return `${name}: a ${mediaType ?? 'untyped'} body, but the document gives none`;
  if (mediaType === undefined || content[mediaType] === undefined)
    return `${name}: media type ${mediaType ?? '(none)'} not documented (only ${Object.keys(content).join(', ')})`;
  const code = (body as { code?: unknown } | null)?.code;
  if (mediaType === 'application/problem+json' && typeof code === 'string') {
    if (!(documented.description ?? '').includes(`\`${code}\``))
      return `${name}: problem code ${code} not among the status's documented codes (${documented.description ?? ''})`;
  }
  if (answer.truncated) return undefined;
  const pointer = `/paths/${token(path)}/${method}/responses/${status}/content/${token(mediaType)}/schema`;
  const validate = validatorOf(checker, pointer);
  if (validate(body)) return undefined;
  const errors = (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`)
    .join('; ');
  return `${name}: body does not match the schema: ${errors}`;
}

/** Header values by lower-case name, from writeHead's object or flat array. */
function headerEntries(headers: OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined): [string, unknown][] {
  if (headers === undefined) return [];
  if (!Array.isArray(headers)) return Object.entries(headers);
  const entries: [string, unknown][] = [];
  for (let index = 0; index + 1 < headers.length; index += 2)
    entries.push([String(headers[index]), headers[index + 1]]);
  return entries;
}

/** Collects what `response` sends and queues it for takeTally once it ends. */
function watch(checkerOf: () => Checker, request: IncomingMessage, response: ServerResponse): void {
  let contentType: string | undefined;
  const chunks: Buffer[] = [];
  let bytes = 0;
  let truncated = false;
  /** light-my-request's end() calls write() with the last chunk, which end() has kept already. */
  let ending = false;
  let ended = false;
  const keep = (chunk: unknown, encoding: unknown): void => {
    let buffer: Buffer;
    if (chunk instanceof Uint8Array) buffer = Buffer.from(chunk);
    else if (typeof chunk === 'string')
      buffer = Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    else return;
    bytes += buffer.length;
    if (bytes > MAX_RECORDED_BYTES) truncated = true;
    else chunks.push(buffer);
  };
  const writeHead = response.writeHead.bind(response);
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = ((...args: Parameters<typeof writeHead>) => {
    const [, reasonOrHeaders, maybeHeaders] = args as unknown[];
    const headers = (typeof reasonOrHeaders === 'string' ? maybeHeaders : reasonOrHeaders) as
      OutgoingHttpHeaders | OutgoingHttpHeader[] | undefined;
    for (const [name, value] of headerEntries(headers))
      if (name.toLowerCase() === 'content-type') contentType = String(value);
    return writeHead(...args);
  }) as typeof response.writeHead;
  response.write = ((...args: unknown[]) => {
    if (!ending) keep(args[0], args[1]);
    return write(...args);
  }) as typeof response.write;
  response.end = ((...args: unknown[]) => {
    if (ended) return end(...args);
    ended = true;
    keep(args[0], args[1]);
    const header = response.getHeader('content-type');
    // Checked later (takeTally): compiling schemas here would slow answers down in timing-sensitive tests.
    answers.push({
      checker: checkerOf,
      answer: {
        method: request.method ?? 'GET',
        url: request.url ?? '/',
        status: response.statusCode,
        contentType: contentType ?? (header === undefined ? undefined : String(header)),
        body: Buffer.concat(chunks),
        truncated,
      },
    });
    ending = true;
    try {
      return end(...args);
    } finally {
      ending = false;
    }
  }) as typeof response.end;
}

/** Documents by the options of the apps that serve them (see recordResponses). */
const documentsByOptions = new Map<string, OpenApiDocument>();

/**
 * The options as a key: plain values as they are, any other object (a store, a clock, the metrics) by its
 * class, which is all the document can depend on.
 */
function optionsKey(options: object): string {
  return JSON.stringify(options, (_key, value: unknown) => {
    if (typeof value === 'function') return `function ${value.name}`;
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
    const prototype: unknown = Object.getPrototypeOf(value);
    if (prototype === Object.prototype || prototype === null) return value;
    return `instance of ${(value as { constructor?: { name?: string } }).constructor?.name ?? '?'}`;
  });
}

/**
 * Checks every response `app` gives against its own /openapi.json document: those to injected requests
 * (light-my-request) and those on real sockets, including the ones answered below the router (the read
 * operation's). Call it before `app.ready()` with the options the app was built with: generating a
 * document takes longer than starting an app, so apps built with equal options (hence serving the same
 * document) share the first one's.
 */
export function recordResponses(app: FastifyInstance, options: object): void {
  const watched = new WeakSet<ServerResponse>();
  const key = optionsKey(options);
  let checker: Checker | undefined;
  // What GET /openapi.json serves (src/http/routes/index.ts); the app may have closed by then, which it allows.
  const checkerOf = (): Checker => {
    if (checker) return checker;
    let document = documentsByOptions.get(key);
    if (!document) {
      document = app.swagger() as OpenApiDocument;
      documentsByOptions.set(key, document);
    }
    checker = checkerFor(document);
    return checker;
  };
  const watchOnce = (request: IncomingMessage, response: ServerResponse) => {
    if (watched.has(response)) return;
    watched.add(response);
    watch(checkerOf, request, response);
  };
  app.server.prependListener('request', watchOnce);
  app.addHook('onRequest', (request, reply, done) => {
    watchOnce(request.raw, reply.raw);
    done();
  });
}
