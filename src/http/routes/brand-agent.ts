import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { brandContextSchema, brandContextSectionsSchema } from '../../contract/brand-context.js';
import { brandDesignTokensSchema, brandViewFields, checkBrandView } from '../../contract/brand-views.js';
import type { BrandContext } from '../../core/brand-context.js';
import { BRAND_FORMATS, type BrandFormat, brandView } from '../../core/brand-views.js';
import { AppError } from '../../core/errors.js';
import type { ServedBrand } from '../../services/brand/reader.js';
import { announceKeyExpiry, principalOf } from '../auth.js';
import { ifNoneMatchMatches } from '../conditional.js';
import type { ZodApp } from '../context.js';
import { withUsualBody } from '../request-input.js';
import { handedOverRead, replayedBody } from './brand-agent-handover.js';
import { BODY_PROBLEMS, withProblems } from '../schemas.js';

export const BRAND_AGENT_PATH = '/functions/v1/brand-agent';
/** Brand-Key-Expires as the API reference shows it (docs/reading-brand-context.md "Formats and sections"); src/http/auth.ts sends it. */
const KEY_EXPIRY_HEADER = {
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
const RATE_LIMIT_HEADERS = {
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
/** The headers both a 200 and a 304 carry. */
const VIEW_HEADERS = { ETag: ETAG_HEADER, 'Brand-Key-Expires': KEY_EXPIRY_HEADER, ...RATE_LIMIT_HEADERS };
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
export interface UsualBody {
  action: string;
  workspace_id: string;
  format?: BrandFormat;
}

/** Every view may be cached but must be asked again (If-None-Match). */
export const VIEW_CACHE_CONTROL = 'private, no-cache';

/**
 * Nearly every read sends `action` and `workspace_id`, perhaps a `format`: such a body, valid and NUL-free, is
 * taken without the schema's parse (src/http/request-input.ts); any other is parsed in full.
 */
export function isUsualBody(data: unknown): data is UsualBody {
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
    })
    .superRefine(checkBrandView),
  isUsualBody,
);

export function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}

/**
 * `POST /functions/v1/brand-agent`: the checks of docs/reading-brand-context.md "Errors", each in its order; who may read what is
 * src/services/auth/credentials.ts's to say. The credential is checked in `onRequest`, before the body is even
 * read, so an unauthenticated caller learns nothing about body rules. A brand read key is the usual
 * credential; a member's user token is accepted too (the MCP server's).
 */
export function brandAgentRoutes(app: ZodApp): void {
  const { credentials, reader, readLimits } = app.services;
  const refuseMethod = (request: FastifyRequest): Promise<never> =>
    Promise.reject(
      new AppError('method_not_allowed', { method: request.method }, { headers: { allow: 'POST' } }),
    );
  app.route({
    method: app.supportedMethods.filter((method) => method !== 'POST'),
    url: BRAND_AGENT_PATH,
    exposeHeadRoute: false,
    schema: { hide: true },
    // Step 1 comes first: refused in onRequest, before a body (an empty one with a JSON type, say) is parsed.
    onRequest: refuseMethod,
    handler: refuseMethod,
  });

  /** Steps 2-3 (the credential) and the content type of step 4, all before the body is read. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    // What the fast lane learned already is not asked again (src/http/routes/brand-agent-fast-lane.ts).
    const learned = handedOverRead(request.raw);
    // Not awaited when the key is cached: see FeedCache.get.
    const principal =
      learned?.principal ?? credentials.resolve({ authorization: request.headers.authorization }, 'read');
    request.principal = principal instanceof Promise ? await principal : principal;
    announceKeyExpiry(reply, request.principal);
    // The credential's budget once it is known (docs/reading-brand-context.md "Errors"): an unknown key takes no one's; 304s count.
    if (readLimits) {
      reply.header('ratelimit-policy', readLimits.policy);
      reply.header('ratelimit', await (learned?.limit ?? readLimits.take(request.principal)));
    }
    // Step 4 begins here, before the body is read: one hook instead of two on the hot path.
    if (!isJson(request.headers['content-type'])) throw new AppError('unsupported_media_type');
  };

  app.post(
    BRAND_AGENT_PATH,
    {
      bodyLimit: BODY_LIMIT,
      onRequest: authenticate,
      // A body the fast lane has read already is parsed from what it read.
      preParsing: (request, _reply, payload, done) => {
        done(null, replayedBody(request.raw) ?? payload);
      },
      schema: {
        tags: ['brand context'],
        operationId: 'readBrandContext',
        summary: 'Read brand context',
        description:
          'Authorized by the Authorization header alone: a brand read key (brk_…) of the workspace, or a user token of a member. Any other method than POST answers 405 `method_not_allowed` with `Allow: POST`. `format`, `sections`, `knowledge_kinds` and `knowledge_tags` choose the view: a knowledge filter needs the knowledge section (when `sections` is given), and `format: "dtcg"` carries colors and fonts only, without knowledge filters. Every answer to a key, refusals after the key is known included, carries `Brand-Key-Expires`. Each credential has a budget of reads (RATE_LIMIT_READS; 304s count): every answer once the credential is known, refusals included, carries `RateLimit-Policy` and `RateLimit`, and a read over the budget answers 429 `rate_limited` with `Retry-After` (whole seconds until the window ends).',
        body: requestSchema,
        response: withProblems(
          {
            200: {
              description:
                'The brand in the format the body asks (docs/reading-brand-context.md "Formats and sections"): the brand context object (json, the default; with `sections`, only those between `workspace_id` and `updated_at`, `version`), Markdown, or design tokens. Each view has its own ETag; `Cache-Control: private, no-cache`.',
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
            'missing_key',
            'malformed_key',
            'invalid_key',
            'key_expired',
            'key_revoked',
            'invalid_token',
            'token_expired',
            'token_revoked',
            'rate_limited',
            ...BODY_PROBLEMS,
            'unsupported_action',
            'workspace_forbidden',
            'workspace_not_found',
          ],
        ),
      },
    },
    // Not an async function: a key reading its own workspace's cached brand is answered with no promise at
    // all (see FeedCache.get); only a lookup that goes to the store returns one.
    (request, reply) => {
      const { action, workspace_id: workspaceId } = request.body;
      if (action !== 'context') throw new AppError('unsupported_action', { action });
      const answer = (brand: ServedBrand): void => {
        reply.header('etag', brand.etag).header('cache-control', VIEW_CACHE_CONTROL);
        if (ifNoneMatchMatches(request.headers['if-none-match'], brand.etag)) reply.code(304).send();
        // Pre-rendered bytes: Fastify sends a Buffer as it is, without the response schema's serializer.
        else reply.type(brand.contentType).send(brand.body as unknown as BrandContext);
      };
      const learned = handedOverRead(request.raw);
      const read = (): Promise<void> | undefined => {
        const served = learned?.brand ?? reader.readWorkspace(workspaceId, brandView(request.body));
        if (served instanceof Promise) return served.then(answer);
        answer(served);
        return undefined;
      };
      const access =
        learned?.access ?? credentials.authorize(principalOf(request), workspaceId, 'brand.read');
      return access instanceof Promise ? access.then(read) : read();
    },
  );
}
