import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  BRAND_CHECK_BODY_LIMIT,
  brandCheckRequestSchema,
  brandCheckResultSchema,
} from '../../contract/brand-check.js';
import { AppError } from '../../core/errors.js';
import { checkBrandContent } from '../../services/brand/check.js';
import { announceKeyExpiry, principalOf, requireCsrfForCookieWrites, SESSION_COOKIE } from '../auth.js';
import type { ZodApp } from '../context.js';
import { BODY_PROBLEMS, jsonResponse, withProblems } from '../schemas.js';
import {
  BRAND_VERSION_HEADER,
  isJson,
  KEY_EXPIRY_HEADER,
  RATE_LIMIT_HEADERS,
  READ_CREDENTIAL_PROBLEMS,
} from './brand-agent.js';

export const BRAND_CHECK_PATH = '/functions/v1/brand-check';

/**
 * `POST /functions/v1/brand-check`, the on-brand check (docs/brand-check.md): taken as the read operation is
 * (src/http/routes/brand-agent.ts), refusals in its order — 405, then the credential (401), its read budget
 * (429, the same limiter as reads), the media type (415) before the body is read, then the body (413, 400),
 * then the workspace (404, 403) and a pinned version (404). A normal Fastify route: the check is not on the
 * read's hot path, and its answer is computed, not served from bytes. Nothing is stored.
 */
export function brandCheckRoute(app: ZodApp): void {
  const { credentials, reader, readLimits } = app.services;

  app.route({
    method: app.supportedMethods.filter((method) => method !== 'POST'),
    url: BRAND_CHECK_PATH,
    exposeHeadRoute: false,
    schema: { hide: true },
    // Refused on arrival, before any body (QUERY has one) is parsed.
    onRequest: (request, _reply, done) => {
      done(new AppError('method_not_allowed', { method: request.method }, { headers: { allow: 'POST' } }));
    },
    handler: () => {
      throw new Error(`${BRAND_CHECK_PATH} refuses other methods in its onRequest hook`);
    },
  });

  /** 401, 429 and 415 before the body is read; each refusal after the key carries the headers learnt so far. */
  const beforeBody = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const { authorization } = request.headers;
    // The console checks copy as it is typed (docs/brand-check.md "In the console") with its session: the
    // cookie, where no Authorization header is sent, stands for the user's token, and (a POST a browser may
    // send from any site) must carry the CSRF token, checked by the next hook. Keys never come as a cookie.
    const sessionCookie =
      authorization === undefined || authorization === '' ? request.cookies[SESSION_COOKIE] : undefined;
    request.viaSessionCookie = sessionCookie !== undefined && sessionCookie !== '';
    const principal = request.viaSessionCookie
      ? await credentials.resolve({ authorization, sessionCookie }, 'management')
      : await credentials.resolve({ authorization }, 'read');
    request.principal = principal;
    announceKeyExpiry(reply, principal);
    if (readLimits) {
      reply.header('ratelimit-policy', readLimits.policy);
      reply.header('ratelimit', await readLimits.take(principal));
    }
    if (!isJson(request.headers['content-type'])) throw new AppError('unsupported_media_type');
  };

  app.post(
    BRAND_CHECK_PATH,
    {
      bodyLimit: BRAND_CHECK_BODY_LIMIT,
      onRequest: [beforeBody, requireCsrfForCookieWrites(app)],
      schema: {
        tags: ['brand context'],
        operationId: 'checkBrandCompliance',
        summary: 'Check copy against the brand',
        description:
          "Checks a subject, text and HTML against the brand's rules (docs/brand-check.md): banned and preferred terms, required phrases, exclamation marks and emoji, and the colors and fonts of the HTML's CSS. Deterministic, and nothing is stored. Authorized as the read operation (`readBrandContext`): a brand read key (brk_…) of the workspace, or a user token of a member; each check spends one read of the credential's budget (RATE_LIMIT_READS), with the same `RateLimit-Policy`, `RateLimit` and 429 `rate_limited`. `version` checks against the brand as it was at that version (404 `version_not_found` when it has none). Any other method than POST answers 405 `method_not_allowed` with `Allow: POST`.",
        body: brandCheckRequestSchema,
        response: withProblems(
          {
            200: {
              ...jsonResponse(
                'The findings, each with its rule, field, excerpt and UTF-16 offsets; `passed` when none is an error. `Cache-Control: no-store`.',
                brandCheckResultSchema,
              ),
              headers: {
                'Brand-Version': BRAND_VERSION_HEADER,
                'Brand-Key-Expires': KEY_EXPIRY_HEADER,
                ...RATE_LIMIT_HEADERS,
              },
            },
          },
          [
            ...READ_CREDENTIAL_PROBLEMS,
            'csrf_failed',
            ...BODY_PROBLEMS,
            'workspace_forbidden',
            'workspace_not_found',
            'version_not_found',
          ],
        ),
      },
    },
    async (request, reply) => {
      const { workspace_id: workspaceId, content, version } = request.body;
      // A pinned version is looked up only once the caller may read the workspace: a foreign key learns nothing of it.
      await credentials.authorize(principalOf(request), workspaceId, 'brand.read');
      const result = await checkBrandContent(reader, workspaceId, content, version);
      return reply
        .header('brand-version', String(result.version))
        .header('cache-control', 'no-store')
        .send(result);
    },
  );
}
