import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { type BrandContext, brandContextSchema } from '../../core/brand-context.js';
import { BRAND_KEY, looksLikeJwt, WORKSPACE_API_KEY } from '../../core/secret-keys.js';
import { AppError } from '../../core/errors.js';
import { authorize } from '../../services/access.js';
import type { VerifiedKey } from '../../services/brand-reader.js';
import { bearerToken, principalOf } from '../auth.js';
import { ifNoneMatchMatches } from '../conditional.js';
import type { AppContext, ZodApp } from '../context.js';
import { BODY_PROBLEMS, jsonResponse, withProblems } from '../schemas.js';

export const BRAND_AGENT_PATH = '/functions/v1/brand-agent';
/** The body is two short strings; anything near this size is not a brand context request. */
const BODY_LIMIT = 16 * 1024;

declare module 'fastify' {
  interface FastifyRequest {
    brandKey: VerifiedKey | null;
  }
}

const requestSchema = z.strictObject({
  action: z.string({ error: 'must be a string' }).describe('Must be "context"'),
  workspace_id: z
    .string({ error: 'must be a string' })
    .min(1, 'must not be empty')
    .max(128, 'must be at most 128 characters'),
});

function isJson(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);
}

/**
 * `POST /functions/v1/brand-agent`: DESIGN 4.4, each check in its order. The credential is checked in
 * `onRequest`, before the body is even read, so an unauthenticated caller learns nothing about body rules.
 * A brand read key is the usual credential; a member's user token is accepted too (the MCP server's).
 */
export function brandAgentRoutes(app: ZodApp, ctx: AppContext): void {
  app.decorateRequest('brandKey', null);

  const refuseMethod = (request: FastifyRequest): Promise<never> =>
    Promise.reject(
      new AppError('method_not_allowed', `${request.method} is not supported here; use POST.`, [], {
        allow: 'POST',
      }),
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
  const authenticate = async (request: FastifyRequest) => {
    const header = request.headers.authorization;
    if (header === undefined || header === '') {
      throw new AppError('missing_key', 'The Authorization header is missing.');
    }
    const token = bearerToken(header);
    if (token === undefined)
      throw new AppError('malformed_key', 'The Authorization header must be "Bearer <key>".');
    if (token.startsWith(BRAND_KEY.prefix) || !looksLikeJwt(token)) {
      if (token.startsWith(WORKSPACE_API_KEY.prefix)) {
        throw new AppError(
          'malformed_key',
          'This is a workspace API key (wsk_…), which reaches campaigns only; the read operation takes a brand read key (brk_…).',
        );
      }
      const verified = ctx.reader.verifyKey(token);
      request.brandKey = verified instanceof Promise ? await verified : verified;
    } else {
      request.principal = await ctx.tokens.verify(token);
    }
    // Step 4 begins here, before the body is read: one hook instead of two on the hot path.
    if (!isJson(request.headers['content-type'])) {
      throw new AppError(
        'unsupported_media_type',
        'The body must be JSON sent with "Content-Type: application/json".',
      );
    }
  };

  app.post(
    BRAND_AGENT_PATH,
    {
      bodyLimit: BODY_LIMIT,
      onRequest: authenticate,
      schema: {
        tags: ['brand context'],
        operationId: 'readBrandContext',
        summary: 'Read brand context',
        description:
          'Authorized by the Authorization header alone: a brand read key (brk_…) of the workspace, or a user token of a member. Any other method than POST answers 405 `method_not_allowed` with `Allow: POST`.',
        body: requestSchema,
        response: withProblems(
          {
            200: jsonResponse('The brand context, with its ETag', brandContextSchema),
            304: z.undefined().describe('Not modified: If-None-Match carries the current ETag'),
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
            ...BODY_PROBLEMS,
            'unsupported_action',
            'workspace_forbidden',
            'workspace_not_found',
          ],
        ),
      },
    },
    async (request, reply) => {
      const { action, workspace_id: workspaceId } = request.body;
      if (action !== 'context') {
        throw new AppError(
          'unsupported_action',
          `Action "${action.slice(0, 64)}" is not supported; use "context".`,
        );
      }
      const key = request.brandKey;
      if (key === null) await authorize(ctx.deps, principalOf(request).user, workspaceId, 'brand.read');
      // Not awaited when cached: see BrandReader.cached.
      const served = key === null ? ctx.reader.readWorkspace(workspaceId) : ctx.reader.read(key, workspaceId);
      const brand = served instanceof Promise ? await served : served;
      reply.header('etag', brand.etag).header('cache-control', 'private, no-cache');
      if (ifNoneMatchMatches(request.headers['if-none-match'], brand.etag)) return reply.code(304).send();
      // Pre-serialized bytes: Fastify sends a Buffer as it is, without the response schema's serializer.
      return reply.type('application/json; charset=utf-8').send(brand.body as unknown as BrandContext);
    },
  );
}
