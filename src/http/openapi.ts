import type {
  FastifyDynamicSwaggerOptions,
  SwaggerTransform,
  SwaggerTransformObject,
} from '@fastify/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import { WEBHOOK_EVENT_SUMMARIES, webhookEventSchemaId } from '../contract/webhook-events.js';
import { WEBHOOK_EVENT_TYPES } from '../contract/webhooks.js';
import { API_REFERENCE_CSS, renderApiReference } from './api-reference.js';
import { SESSION_COOKIE } from './auth.js';
import type { ZodApp } from './context.js';
import { pageSecurityHeaders } from './page-headers.js';

/** Where the browsable API reference is served (docs/management-api.md "Management API"). */
const DOCS_PATH = '/docs';
const SCHEMA_REF = '#/components/schemas/';

/**
 * fastify-type-provider-zod lists every registered zod schema twice, as it is read and as it is written
 * (`BrandKeyInput` and `BrandKey`): keep only the schemas the operations and webhooks reach, so the document
 * has no dangling components.
 */
const withUsedSchemasOnly: SwaggerTransformObject = (documentObject) => {
  const document = jsonSchemaTransformObject(documentObject);
  if (!('openapi' in document) || document.components?.schemas === undefined) return document;
  const { schemas } = document.components;
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(SCHEMA_REF)) {
        const name = value.slice(SCHEMA_REF.length);
        if (!used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        }
      } else visit(value);
    }
  };
  visit(document.paths);
  if ('webhooks' in document) visit(document.webhooks);
  // A new object on every call (the transform builds it), so it is ours to change.
  document.components.schemas = Object.fromEntries(Object.entries(schemas).filter(([id]) => used.has(id)));
  return document;
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * fastify-type-provider-zod keeps only the description and content of a response given by media type: put
 * back the headers it documents (OpenAPI header objects' schemas, as plain JSON Schema), such as the read
 * operation's Brand-Key-Expires.
 */
const withResponseHeaders: SwaggerTransform = (route) => {
  const transformed = jsonSchemaTransform(route);
  const { response } = route.schema;
  const documented = transformed.schema.response;
  if (!isRecord(response) || !isRecord(documented)) return transformed;
  for (const [status, declared] of Object.entries(response)) {
    const out = documented[status];
    if (isRecord(declared) && isRecord(declared.headers) && isRecord(out)) out.headers = declared.headers;
  }
  return transformed;
};

/** The Standard Webhooks headers of every attempt (docs/webhooks.md "Verifying a delivery"). */
const WEBHOOK_HEADERS: OpenAPIV3_1.ParameterObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description:
      'The event’s `id` (`evt_…`): the same on every attempt of it, retries and manual retries included. Dedupe on it.',
    schema: { type: 'string' },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description:
      'When this attempt was made, in Unix seconds: refuse one more than 5 minutes away from your clock (a replay).',
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      '`v1,` and the base64 HMAC-SHA256, under the endpoint’s secret, of `{webhook-id}.{webhook-timestamp}.{body}`; for 24 hours after a rotation, two of them separated by a space, one per secret. Verify the raw body before parsing it (the `standardwebhooks` package does).',
    schema: { type: 'string' },
  },
  {
    name: 'user-agent',
    in: 'header',
    required: true,
    schema: { type: 'string', enum: ['Brand-Context-Webhooks/1'] },
  },
];

/** `brand_key.created` → `onBrandKeyCreated`. */
function webhookOperationId(type: string): string {
  return `on${type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}`;
}

/**
 * OpenAPI 3.1's `webhooks` (docs/webhooks.md "Event schemas"): one POST per event type, its body the event's
 * schema in src/contract/webhook-events.ts, so that receivers generate their types as clients do.
 */
const WEBHOOK_OPERATIONS: Record<string, OpenAPIV3_1.PathItemObject> = Object.fromEntries(
  WEBHOOK_EVENT_TYPES.map((type): [string, OpenAPIV3_1.PathItemObject] => [
    type,
    {
      post: {
        tags: ['webhook events'],
        operationId: webhookOperationId(type),
        summary: WEBHOOK_EVENT_SUMMARIES[type],
        description: `Sent to each enabled endpoint that subscribes to \`${type}\` (or to \`*\`), signed per Standard Webhooks 1.0, and retried until the endpoint answers 2xx.`,
        security: [],
        parameters: WEBHOOK_HEADERS,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { $ref: `${SCHEMA_REF}${webhookEventSchemaId(type)}` } } },
        },
        responses: {
          '2XX': {
            description:
              'Delivered. Any other status, a redirect (never followed) or no answer within 10 seconds fails the attempt, which is retried on the schedule.',
          },
        },
      },
    },
  ]),
);

/**
 * `GET /openapi.json`, generated from the zod schemas that validate each route. OpenAPI 3.1 (JSON Schema
 * 2020-12) because it has a null type: under 3.0, a zod union with null became a `nullable` without a
 * `type` (which 3.0 ignores), and a bodyless 204 or 304 (`z.null()`) a JSON body.
 */
export const OPENAPI_OPTIONS: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Brand Context',
      version: '1',
      description:
        'Brand data for tools, AI clients and scripts. Every error is an RFC 9457 `application/problem+json` body whose `code` says what went wrong and whose `resolution` says what to do; each operation lists the statuses and codes it answers. Any request can also be refused before it reaches an operation: 400 `bad_request` (malformed HTTP or URL), 408 `request_timeout`, 414 `uri_too_long`, 417 `expectation_failed`, 431 `headers_too_large`, or 503 `service_unavailable` while the service shuts down.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document' }],
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'A user token (from sign-in, or a personal access token), a workspace API key (`wsk_…`, campaign routes only), for the read operation only a brand read key (`brk_…`), and for /email/v1 only a transactional email key (`tek_…`).',
        },
        sessionCookie: {
          type: 'apiKey',
          in: 'cookie',
          name: SESSION_COOKIE,
          description:
            'The console’s session (POST /auth/v1/session). Writes made with it also need the X-CSRF-Token header.',
        },
      },
    },
    security: [{ bearer: [] }],
    webhooks: WEBHOOK_OPERATIONS,
  },
  transform: withResponseHeaders,
  transformObject: withUsedSchemasOnly,
};

/**
 * The reference is one static page and one stylesheet, both from this service: no script at all, nothing
 * from elsewhere, no form, never framed.
 */
const DOCS_CSP = [
  "default-src 'none'",
  "style-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * The browsable API reference at /docs: GET /openapi.json's document as a static page (src/http/api-reference.ts),
 * rendered once, when first asked.
 */
export function docsRoutes(app: ZodApp): void {
  app.addHook('onRequest', pageSecurityHeaders(DOCS_CSP));
  let page: string | undefined;
  const servePage = (_request: FastifyRequest, reply: FastifyReply) => {
    page ??= renderApiReference(app.swagger(), {
      documentUrl: '/openapi.json',
      stylesheetUrl: `${DOCS_PATH}/reference.css`,
    });
    return reply.type('text/html; charset=utf-8').send(page);
  };
  app.get(DOCS_PATH, { schema: { hide: true } }, servePage);
  app.get(`${DOCS_PATH}/`, { schema: { hide: true } }, servePage);
  app.get(`${DOCS_PATH}/reference.css`, { schema: { hide: true } }, (_request, reply) =>
    reply.type('text/css; charset=utf-8').send(API_REFERENCE_CSS),
  );
}
