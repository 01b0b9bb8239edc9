import { emailMessagePageSchema } from '../../../contract/email.js';
import { listEmails } from '../../../services/email/messages.js';
import type { ZodApp } from '../../context.js';
import { jsonResponse, withProblems } from '../../schemas.js';
import { EMAIL_KEY_PROBLEMS, emailListQuery, emailWorkspaceOf } from './email-key.js';

/** GET /email/v1/messages: the messages the key's workspace sent through /email/v1, newest first. */
export function listEmailsRoute(app: ZodApp): void {
  app.get(
    '',
    {
      config: { permission: 'email.send' },
      schema: {
        tags: ['transactional email'],
        operationId: 'listEmails',
        summary: 'List sent emails',
        description: 'Newest first, without bodies or events; `status` keeps the messages in that status.',
        querystring: emailListQuery,
        response: withProblems(
          {
            200: jsonResponse(
              'Messages, newest first, and the cursor of the next page (null on the last)',
              emailMessagePageSchema,
            ),
          },
          EMAIL_KEY_PROBLEMS,
        ),
      },
    },
    (request) =>
      listEmails(app.services.deps, { workspaceId: emailWorkspaceOf(request), source: 'api' }, request.query),
  );
}
