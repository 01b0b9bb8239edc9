import type { FastifyInstance, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import { z } from 'zod';
import { toFieldIssues } from '../../core/brand-context.js';
import { AppError } from '../../core/errors.js';
import type { BrandReader, VerifiedKey } from '../../services/brand-reader.js';

export const BRAND_AGENT_PATH = '/functions/v1/brand-agent';
/** The body is two short strings; anything near this size is not a brand context request. */
const BODY_LIMIT = 16 * 1024;
const OTHER_METHODS = ['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

declare module 'fastify' {
  interface FastifyRequest {
    brandKey: VerifiedKey | null;
  }
}

const requestSchema = z.strictObject({
  action: z.string({ error: 'must be a string' }),
  workspace_id: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters'),
});

/** `Bearer <token>`: the scheme is case-insensitive (RFC 9110 §11.1), the token one word. */
function bearerToken(header: string): string | undefined {
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match?.[1];
}

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}

/**
 * `POST /functions/v1/brand-agent`: DESIGN 4.4, each check in its order. The key is checked in `onRequest`,
 * before the body is even read, so an unauthenticated caller learns nothing about body rules.
 */
export function brandAgentRoutes(app: FastifyInstance, reader: BrandReader): void {
  app.decorateRequest('brandKey', null);

  app.route({
    method: [...OTHER_METHODS],
    url: BRAND_AGENT_PATH,
    exposeHeadRoute: false,
    handler: (request, reply) => {
      reply.header('allow', 'POST');
      throw new AppError('method_not_allowed', `${request.method} is not supported here; use POST.`);
    },
  });

  const authenticate = async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      throw new AppError('missing_key', 'The Authorization header is missing.');
    }
    const token = bearerToken(header);
    if (token === undefined)
      throw new AppError('malformed_key', 'The Authorization header must be "Bearer <key>".');
    request.brandKey = await reader.verifyKey(token);
  };

  app.post(BRAND_AGENT_PATH, { bodyLimit: BODY_LIMIT, onRequest: authenticate }, async (request, reply) => {
    if (!isJson(request.headers['content-type'])) {
      throw new AppError(
        'unsupported_media_type',
        'The body must be JSON sent with "Content-Type: application/json".',
      );
    }
    const parsed = requestSchema.safeParse(request.body);
    if (!parsed.success) {
      const fields = toFieldIssues(parsed.error);
      const summary = fields.map((issue) =>
        issue.field ? `${issue.field} ${issue.message}` : 'the body must be a JSON object',
      );
      throw new AppError('invalid_request', `Invalid request: ${summary.join('; ')}.`, fields);
    }
    const { action, workspace_id: workspaceId } = parsed.data;
    if (action !== 'context') {
      throw new AppError(
        'unsupported_action',
        `Action "${action.slice(0, 64)}" is not supported; use "context".`,
      );
    }
    const key = request.brandKey;
    if (key === null) throw new Error('brand-agent handler reached without a verified key');
    const brand = await reader.read(key, workspaceId);
    reply.header('etag', brand.etag).header('cache-control', 'private, no-cache');
    if (fresh(request.headers, { etag: brand.etag })) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(brand.body);
  });
}
