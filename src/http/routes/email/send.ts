import { z } from 'zod';
import {
  EMAIL_LIMITS,
  EMAIL_REQUEST_LIMIT,
  newEmailMessageSchema,
  queuedEmailSchema,
} from '../../../contract/email.js';
import type { ZodApp } from '../../context.js';
import { sendEmail } from '../../../services/email/messages.js';
import { BODY_PROBLEMS, jsonResponse, withProblems } from '../../schemas.js';
import { EMAIL_KEY_PROBLEMS, emailWorkspaceOf } from './email-key.js';

const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1, 'must not be empty')
    .max(EMAIL_LIMITS.idempotencyKey)
    // `*`, not `+`: an empty key is refused once, by min(1).
    .regex(/^[\x20-\x7e]*$/, 'must be printable ASCII characters')
    .optional()
    .describe(
      'Names this request for 24 hours: a repeat with the same body answers the first answer and sends nothing again',
    ),
});

/**
 * POST /email/v1/messages: queues a message from an allowed sender of the key's workspace, one delivery per
 * distinct recipient (docs/email.md "Transactional email"). 202: it is sent by the delivery worker, not here.
 */
export function sendEmailRoute(app: ZodApp): void {
  app.post(
    '',
    {
      config: { permission: 'email.send' },
      bodyLimit: EMAIL_REQUEST_LIMIT,
      schema: {
        tags: ['transactional email'],
        operationId: 'sendEmail',
        summary: 'Send an email',
        description:
          'Authorized by a transactional email key (tek_…) of the workspace, which sends from an address or domain the workspace is allowed to use. The same address named twice (in to, cc or bcc) gets one copy, in the first field naming it; an address that bounced before is not sent to (its status is `suppressed`). With an `Idempotency-Key`, a repeat of the same request within 24 hours answers the first answer with `Idempotent-Replayed: true` and queues nothing.',
        headers: idempotencyHeaders,
        body: newEmailMessageSchema,
        response: withProblems(
          {
            202: jsonResponse(
              'Queued: the message id (Location reads it back) and its status, queued or suppressed',
              queuedEmailSchema,
            ),
          },
          [
            ...EMAIL_KEY_PROBLEMS,
            ...BODY_PROBLEMS,
            'sender_not_allowed',
            'sender_misleading',
            'idempotency_key_reused',
            'storage_full',
          ],
        ),
      },
    },
    async (request, reply) => {
      const sent = await sendEmail(
        app.services.deps,
        emailWorkspaceOf(request),
        request.body,
        request.headers['idempotency-key'],
      );
      if (sent.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(202).header('location', `/email/v1/messages/${sent.message.id}`).send(sent.message);
    },
  );
}
