import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { z } from 'zod';
import { brandContextSchema, brandContextSectionsSchema } from '../../contract/brand-context.js';
import {
  brandDesignTokensSchema,
  brandVersionField,
  brandViewFields,
  checkBrandView,
} from '../../contract/brand-views.js';
import { BRAND_FORMATS, type BrandFormat, brandView } from '../../core/brand-views.js';
import { AppError } from '../../core/errors.js';
import { lazyChildLoggerFactory } from '../../logger.js';
import type { Principal, WorkspaceClaim } from '../../services/auth/credentials.js';
import type { ServedBrand } from '../../services/brand/reader.js';
import type { Metrics } from '../../services/metrics/metrics.js';
import { andThen, type MaybePromise } from '../../services/shared/feed-cache.js';
import { logRequest } from '../access-log.js';
import { ifNoneMatchMatches } from '../conditional.js';
import type { ZodApp } from '../context.js';
import { fromValidation, problemOf, rawProblem } from '../problem.js';
import { requestId as requestIdOf } from '../request-id.js';
import { jsonBodyParser, SmallBody, validatorCompiler, withUsualBody } from '../request-input.js';
import { BODY_PROBLEMS, withProblems } from '../schemas.js';

export const BRAND_AGENT_PATH = '/functions/v1/brand-agent';
/** Brand-Key-Expires as the API reference shows it (docs/reading-brand-context.md "Formats and sections"); src/http/auth.ts sends it. */
export const KEY_EXPIRY_HEADER = {
  type: 'string',
  format: 'date-time',
  description:
    'When the brand read key expires (RFC 3339), on every answer to a key once the key is known, refusals included: rotate it before then. Not sent to a user token.',
};
const ETAG_HEADER = {
  type: 'string',
  description:
    "The view's ETag (format, sections and filters, and the brand's version): send it as If-None-Match to get 304 while neither changed.",
};
/** The read budget (docs/configuration.md "Configuration", RATE_LIMIT_READS); src/services/brand/read-limits.ts makes them. */
export const RATE_LIMIT_HEADERS = {
  'RateLimit-Policy': {
    type: 'string',
    description:
      'The budget of reads per credential (draft-ietf-httpapi-ratelimit-headers): `"reads";q=6000;w=60` is 6,000 reads per 60 s. On every answer once the credential is known, refusals included; absent when the service sets no limit.',
  },
  RateLimit: {
    type: 'string',
    description:
      'What is left of the budget: `"reads";r=41;t=12` is 41 more reads in the 12 s before the window ends. On every answer once the credential is known, refusals included; absent when the service sets no limit.',
  },
};
export const BRAND_VERSION_HEADER = {
  type: 'integer',
  description:
    'The version of the brand the answer is (docs/brand-versions.md "Pinned reads"): the latest, or the one the body pinned with `version`. Send it back as `version` to read the same brand again later.',
};
/** The refusals of a read operation's credential and its budget: the brand check answers them alike. */
export const READ_CREDENTIAL_PROBLEMS = [
  'missing_key',
  'malformed_key',
  'invalid_key',
  'key_expired',
  'key_revoked',
  'invalid_token',
  'token_expired',
  'token_revoked',
  'rate_limited',
] as const;
/** The headers both a 200 and a 304 carry. */
const VIEW_HEADERS = {
  ETag: ETAG_HEADER,
  'Brand-Version': BRAND_VERSION_HEADER,
  'Brand-Key-Expires': KEY_EXPIRY_HEADER,
  ...RATE_LIMIT_HEADERS,
};
/**
 * A bodyless response that documents its headers: Fastify wants a zod schema where no media type keys one,
 * and src/http/openapi.ts copies any response's `headers` into the API reference.
 */
function bodyless(description: string, headers: Record<string, object>) {
  return Object.assign(z.undefined().describe(description), { headers });
}
/** The body is a few short strings and lists; anything near this size is not a brand context request. */
const BODY_LIMIT = 16 * 1024;

const MAX_WORKSPACE_ID = 128;

/** The body nearly every read sends. */
interface UsualBody {
  action: string;
  workspace_id: string;
  format?: BrandFormat;
}

/** Every view may be cached but must be asked again (If-None-Match). */
const VIEW_CACHE_CONTROL = 'private, no-cache';

/**
 * Nearly every read sends `action` and `workspace_id`, perhaps a `format`: such a body, valid and NUL-free, is
 * taken without the schema's parse (src/http/request-input.ts); any other is parsed in full.
 */
function isUsualBody(data: unknown): data is UsualBody {
  if (typeof data !== 'object' || data === null) return false;
  const { action, workspace_id: workspaceId, format } = data as Record<string, unknown>;
  const fields = Object.keys(data).length;
  return (
    (fields === 2 || (fields === 3 && (BRAND_FORMATS as readonly unknown[]).includes(format))) &&
    typeof action === 'string' &&
    !action.includes('\0') &&
    typeof workspaceId === 'string' &&
    workspaceId.length >= 1 &&
    workspaceId.length <= MAX_WORKSPACE_ID &&
    !workspaceId.includes('\0')
  );
}

const requestSchema = withUsualBody(
  z
    .strictObject({
      action: z.string().describe('Must be "context"'),
      workspace_id: z
        .string()
        .min(1, 'must not be empty')
        .max(MAX_WORKSPACE_ID, `must be at most ${String(MAX_WORKSPACE_ID)} characters`),
      ...brandViewFields,
      ...brandVersionField,
    })
    .superRefine(checkBrandView),
  isUsualBody,
);

export function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}

/** Why a body gives no fields: its refusal, and whether it was unparsable (the connection then closes). */
class BodyRefusal {
  constructor(
    readonly error: unknown,
    readonly unparsed: boolean,
  ) {}
}

/** A request answered below the router, on Node's request and response (src/http/transport.ts). */
export type ReadHandler = (request: IncomingMessage, response: ServerResponse, requestId?: string) => void;

/** The fields of a read's body, as validated. */
type ReadFields = z.infer<typeof requestSchema>;

/**
 * `POST /functions/v1/brand-agent`, the read operation: one function answers every request to its path,
 * success and every refusal alike, each check in the order of docs/reading-brand-context.md "Errors"
 * (docs/architecture.md "The hot path"); who may read what is src/services/auth/credentials.ts's to say. It
 * answers on Node's request and response: the HTTP server hands it every request to its path before the
 * router (src/http/transport.ts), and its Fastify routes (below) only describe it and hand it what reaches
 * the router anyway (injected requests). Its problems are the app's (src/http/problem.ts); it logs and
 * counts each answer as the access log does every other (src/http/access-log.ts).
 */
export function brandContextReads(
  app: ZodApp,
  metrics: Pick<Metrics, 'requestCompleted'> | undefined,
): ReadHandler {
  const { credentials, reader, readLimits } = app.services;
  const logger = app.log;
  const parseJson = jsonBodyParser(app);
  const validate = validatorCompiler({
    schema: requestSchema,
    method: 'POST',
    url: BRAND_AGENT_PATH,
    httpPart: 'body',
  });

  /**
   * 405, 401, 429 and 415, in this order, while the body arrives: the caller, whose budget has given this
   * read. Nothing waits unless a step returns a promise: a cached key is known at once (see FeedCache.get), and
   * the node's own budget counts at once. `answered` gathers the answer's headers as the steps learn them, so a
   * refusal carries those of the steps before it.
   */
  function beforeBody(
    request: IncomingMessage,
    claim: WorkspaceClaim,
    answered: OutgoingHttpHeaders,
  ): MaybePromise<Principal> {
    const { method = '', headers } = request;
    if (method !== 'POST')
      throw new AppError('method_not_allowed', { method }, { headers: { allow: 'POST' } });
    const mediaTypeChecked = (principal: Principal): Principal => {
      if (!isJson(headers['content-type'])) throw new AppError('unsupported_media_type');
      return principal;
    };
    return andThen(
      credentials.resolve({ authorization: headers.authorization }, 'read', claim),
      (principal) => {
        if (principal.kind === 'key' && principal.expiresHeader !== null)
          answered['brand-key-expires'] = principal.expiresHeader;
        // The credential's budget once it is known: an unknown key takes no one's; 304s count.
        if (!readLimits) return mediaTypeChecked(principal);
        answered['ratelimit-policy'] = readLimits.policy;
        return andThen(readLimits.take(principal), (header) => {
          answered.ratelimit = header;
          return mediaTypeChecked(principal);
        });
      },
    );
  }

  /** The body's fields, parsed as the app parses JSON bodies and validated by the route's schema, or why not. */
  function fieldsOf(text: string): ReadFields | BodyRefusal {
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch (error) {
      return new BodyRefusal(error, true);
    }
    const result = validate(parsed) as { value?: ReadFields; error?: FastifySchemaValidationError[] };
    if (result.error || !result.value) return new BodyRefusal(fromValidation(result.error ?? []), false);
    return result.value;
  }

  /**
   * 413 and 400, then 404 and 403, once the body is whole: the view to serve. Refused unread or unparsed, a
   * body closes the connection, as Fastify's parser does.
   */
  function afterBody(
    principal: Principal,
    fields: ReadFields | BodyRefusal,
    answered: OutgoingHttpHeaders,
  ): MaybePromise<ServedBrand> {
    if (fields instanceof BodyRefusal) {
      if (fields.unparsed) answered.connection = 'close';
      throw fields.error;
    }
    if (fields.action !== 'context') throw new AppError('unsupported_action', { action: fields.action });
    const view = brandView(fields);
    const { version } = fields;
    // Answered at once for a key of that workspace; the view is rendered once per brand version. A pinned
    // version is looked up only once the caller may read the workspace, so a foreign key learns nothing of it.
    return andThen(credentials.authorize(principal, fields.workspace_id, 'brand.read'), () =>
      version === undefined
        ? reader.readWorkspace(fields.workspace_id, view)
        : reader.readVersion(fields.workspace_id, version, view),
    );
  }

  return (request, response, requestId = requestIdOf(request)) => {
    const started = performance.now();
    const answered: OutgoingHttpHeaders = { 'x-request-id': requestId };
    const log = () => lazyChildLoggerFactory(logger, { request_id: requestId }, {});
    /** Counted and logged as the access log counts and logs every other request. */
    const completed = (status: number) => {
      const { method = '', url = '' } = request;
      const ms = performance.now() - started;
      metrics?.requestCompleted(BRAND_AGENT_PATH, method, status, ms);
      logRequest(logger.level, log, { method, url, status, ms });
    };
    const serve = (brand: ServedBrand) => {
      answered.etag = brand.etag;
      answered['brand-version'] = brand.version;
      answered['cache-control'] = VIEW_CACHE_CONTROL;
      // 304 while If-None-Match names the view's ETag; else the view's bytes as they are.
      if (ifNoneMatchMatches(request.headers['if-none-match'], brand.etag)) {
        response.writeHead(304, answered).end();
        completed(304);
        return;
      }
      answered['content-type'] = brand.contentType;
      answered['content-length'] = brand.body.length;
      response.writeHead(200, answered).end(brand.body);
      completed(200);
    };
    const refuse = (error: unknown) => {
      const { status, headers, body } = rawProblem(problemOf(error), requestId);
      if (status >= 500) log().error({ err: error }, 'request failed');
      response.writeHead(status, { ...answered, ...headers }).end(body);
      completed(status);
    };
    /** Calls `next` with what `step` gives, at once or once it comes; a refusal, thrown or rejected, is answered. */
    const andThenServe = <T>(step: () => MaybePromise<T>, next: (value: T) => void) => {
      let value: MaybePromise<T>;
      try {
        value = step();
      } catch (error) {
        refuse(error);
        return;
      }
      if (value instanceof Promise) value.then(next, refuse);
      else next(value);
    };
    // Read as it arrives, while the checks before it run. Nothing is awaited that is not a promise, and the rest
    // is answered in the body's own callback: answered from a promise continuation, each read's objects
    // outlived young-generation collections, and the service's RSS under load grew from 130 MB to about 200 MB.
    const body = new SmallBody(request, BODY_LIMIT);
    /** The body's fields, checked once, whoever asks first: a signed key's claim, or the read. */
    let checked: ReadFields | BodyRefusal | undefined;
    const check = (text: string | AppError) =>
      (checked ??= typeof text === 'string' ? fieldsOf(text) : new BodyRefusal(text, false));
    /** A key the cache does not hold may be verified by its signature for the workspace the body names. */
    const claim: WorkspaceClaim = async () => {
      if (!isJson(request.headers['content-type'])) return undefined;
      const fields = check(await body.text());
      return fields instanceof BodyRefusal ? undefined : fields.workspace_id;
    };
    andThenServe(
      () => beforeBody(request, claim, answered),
      (principal) => {
        body.whenWhole((text) => {
          andThenServe(() => afterBody(principal, check(text), answered), serve);
        });
      },
    );
  };
}

/**
 * The read operation's routes, for the API reference and for requests that reach the router (Fastify's
 * `inject`): each hands the request to `read` as it arrives, so the router never reads its body.
 */
export function brandAgentRoutes(app: ZodApp, read: ReadHandler): void {
  // Never calls `done`: the request is the read's from here.
  const handOver = (request: FastifyRequest, reply: FastifyReply, _done: () => void): void => {
    reply.hijack();
    read(request.raw, reply.raw, request.id);
  };
  const answeredInOnRequest = (): never => {
    throw new Error(`${BRAND_AGENT_PATH} is answered in its onRequest hook`);
  };
  app.route({
    method: app.supportedMethods.filter((method) => method !== 'POST'),
    url: BRAND_AGENT_PATH,
    exposeHeadRoute: false,
    schema: { hide: true },
    onRequest: handOver,
    handler: answeredInOnRequest,
  });

  app.post(
    BRAND_AGENT_PATH,
    {
      onRequest: handOver,
      schema: {
        tags: ['brand context'],
        operationId: 'readBrandContext',
        summary: 'Read brand context',
        description:
          'Authorized by the Authorization header alone: a brand read key (brk_…) of the workspace, or a user token of a member. Any other method than POST answers 405 `method_not_allowed` with `Allow: POST`. `format`, `sections`, `knowledge_kinds` and `knowledge_tags` choose the view: a knowledge filter needs the knowledge section (when `sections` is given), and `format: "dtcg"` carries colors and fonts only, without knowledge filters. `version` pins the brand as it was at that version, in any view (404 `version_not_found` when it has none); every answer carries `Brand-Version`. Every answer to a key, refusals after the key is known included, carries `Brand-Key-Expires`. Each credential has a budget of reads (RATE_LIMIT_READS; 304s count): every answer once the credential is known, refusals included, carries `RateLimit-Policy` and `RateLimit`, and a read over the budget answers 429 `rate_limited` with `Retry-After` (whole seconds until the window ends).',
        body: requestSchema,
        response: withProblems(
          {
            200: {
              description:
                'The brand in the format the body asks (docs/reading-brand-context.md "Formats and sections"): the brand context object (json, the default; with `sections`, only those between `workspace_id` and `updated_at`, `version`), Markdown, or design tokens. Each view of each version has its own ETag; `Brand-Version` names the version; `Cache-Control: private, no-cache`.',
              headers: {
                ...VIEW_HEADERS,
                'Cache-Control': {
                  type: 'string',
                  description:
                    '`private, no-cache`: a cache may keep the answer but must ask again (If-None-Match).',
                },
              },
              content: {
                'application/json': {
                  schema: z
                    .union([brandContextSchema, brandContextSectionsSchema])
                    .describe(
                      'format json: the whole brand context object (BrandContext) or, when the body names `sections`, only those sections between `workspace_id` and `updated_at`, `version` (BrandContextSections)',
                    ),
                },
                'text/markdown': {
                  schema: z
                    .string()
                    .describe(
                      'format markdown: the brand name as the title, then a `## Heading` per section, for a system prompt',
                    ),
                },
                'application/design-tokens+json': { schema: brandDesignTokensSchema },
              },
            },
            304: bodyless(
              "Not modified: If-None-Match carries the view's current ETag. No body.",
              VIEW_HEADERS,
            ),
          },
          [
            ...READ_CREDENTIAL_PROBLEMS,
            ...BODY_PROBLEMS,
            'unsupported_action',
            'workspace_forbidden',
            'workspace_not_found',
            'version_not_found',
          ],
        ),
      },
    },
    answeredInOnRequest,
  );
}
