import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { EMAIL_STATUSES } from '../../../contract/email.js';
import type { ProblemCode } from '../../../core/errors.js';
import { type Credentials, requireKeyPermission } from '../../../services/auth/credentials.js';
import { announceKeyExpiry, principalOf } from '../../auth.js';

/** Problems every /email/v1 route answers before it runs: the key, and a NUL in the path or query. */
export const EMAIL_KEY_PROBLEMS = [
  'email_key_missing',
  'email_key_invalid',
  'email_key_expired',
  'email_key_revoked',
  'invalid_request',
] as const satisfies readonly ProblemCode[];

/** A message's id in the path, on /email/v1 and in the console alike. */
export const emailMessageId = z.string().min(1).max(128).describe('Message id (em_…)');

/** The message log's filters, on /email/v1 and in the console alike. */
export const emailListQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(512).optional().describe('next_cursor of the previous page'),
  status: z.enum(EMAIL_STATUSES).optional(),
});

/**
 * onRequest hook of every /email/v1 route: a transactional email key (src/services/auth/credentials.ts, surface
 * `email`) whose permissions cover the route's; checked before the body is read.
 */
export function authenticateEmailKey(credentials: Credentials) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = await credentials.resolve({ authorization: request.headers.authorization }, 'email');
    announceKeyExpiry(reply, principal);
    requireKeyPermission(principal, request.routeOptions.config.permission);
    request.principal = principal;
  };
}

/** The workspace a /email/v1 request acts in: its key's own. */
export function emailWorkspaceOf(request: FastifyRequest): string {
  const principal = principalOf(request);
  if (principal.kind !== 'key') throw new Error(`${request.url} reached its handler without an email key`);
  return principal.workspaceId;
}
