import { AppError } from '../../../../core/errors.js';
import { getCapturedEmail } from '../../../../services/email/messages.js';
import type { ZodApp } from '../../../context.js';
import { htmlResponse, MANAGEMENT_SECURITY, managementProblems, withProblems } from '../../../schemas.js';
import { emailMessageParams } from './get.js';

/**
 * The HTML body's own policy, so that the console's mailbox shows it as a mail client would: its inline
 * styles and data: images and fonts, and nothing else. No script runs and nothing is fetched (a tracking
 * pixel or remote image stays unloaded); a document of its own origin (sandbox), which only the console
 * may frame. Its links open in a tab of their own (popups), outside the sandbox so that the page a link
 * leads to (an invite's) works.
 */
const CAPTURED_HTML_CSP = [
  'sandbox allow-popups allow-popups-to-escape-sandbox',
  "default-src 'none'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  'font-src data:',
  "frame-ancestors 'self'",
].join('; ');

const CAPTURED_HTML_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': CAPTURED_HTML_CSP,
  // For browsers that predate frame-ancestors.
  'x-frame-options': 'SAMEORIGIN',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
};

/** The body's doctype, if any: nothing may precede it, or the page would render in quirks mode. */
const DOCTYPE = /^\s*<!doctype[^>]*>/i;

/**
 * The body as sent, its links opening in a new tab: a framed page cannot navigate the console, and a link
 * is what a developer reads a captured invite or password reset for. A leading <base> joins the head.
 */
function linksInNewTab(html: string): string {
  const doctype = DOCTYPE.exec(html)?.[0] ?? '';
  return `${doctype}<base target="_blank">${html.slice(doctype.length)}`;
}

/**
 * GET /api/v1/workspaces/{id}/email-messages/{message_id}/content.html: a captured message's HTML body as
 * the console's mailbox frames it (docs/email.md "Without SMTP_URL"). Captured messages only, as …/content.
 */
export function emailMessageHtmlRoute(app: ZodApp): void {
  app.get(
    '/:message_id/content.html',
    {
      config: { permission: 'email.read' },
      schema: {
        tags: ['transactional email'],
        operationId: 'getCapturedEmailHtml',
        summary: 'Read a captured email’s HTML body as a page',
        description:
          'The HTML body alone, as `text/html`, its links opening in a new tab (a leading `<base target="_blank">`), under a Content-Security-Policy that runs no script and loads nothing from the network (inline styles and data: images only) and lets only the console frame it. Only a message whose status is `captured` and that has an HTML body: any other answers 404 `email_message_not_found`.',
        security: MANAGEMENT_SECURITY,
        params: emailMessageParams,
        response: withProblems({ 200: htmlResponse('The captured message’s HTML body') }, [
          ...managementProblems('read', 'email.read'),
          'email_message_not_found',
          'secret_unreadable',
        ]),
      },
    },
    async (request, reply) => {
      const messageId = request.params.message_id;
      const { html } = await getCapturedEmail(app.services.deps, request.params.id, messageId);
      if (html === null) {
        throw new AppError(
          'email_message_not_found',
          { reason: 'no_html', messageId },
          { advice: 'This captured message has no HTML body: read its text with GET …/content.' },
        );
      }
      return reply.headers(CAPTURED_HTML_HEADERS).send(linksInNewTab(html));
    },
  );
}
