import { z } from 'zod';
import { type CapturedEmail, EMAIL_LIMITS } from '../../contract/email.js';
import { parseInput } from '../../core/inputs.js';
import type { Deps } from '../shared/deps.js';
import { readCapturedEmail } from './messages.js';
import type { SecretBox } from '../shared/secret-box.js';

/** How many messages `brand-context mailbox` shows unless told otherwise, and at most. */
export const MAILBOX_LIMITS = { default: 10, max: 100 } as const;

const mailboxSchema = z.object({
  to: z.string().trim().toLowerCase().max(EMAIL_LIMITS.address).optional(),
  limit: z.number().int().min(1).max(MAILBOX_LIMITS.max).default(MAILBOX_LIMITS.default),
});

/**
 * The development mailbox of the whole installation (docs/email.md "Transactional email", no SMTP_URL): the
 * captured messages of every workspace and of none (a password reset), newest first, with their bodies,
 * optionally only those to `to`. The operator's, at the CLI: it holds every account's one-time links.
 */
export async function readMailbox(
  deps: Deps<'email'>,
  secrets: SecretBox,
  options: { to?: string | undefined; limit?: number | undefined },
): Promise<CapturedEmail[]> {
  const query = parseInput(mailboxSchema, options, '', 'Invalid mailbox query');
  const messages = await deps.store.email.listCaptured(query);
  return Promise.all(messages.map((message) => readCapturedEmail(deps.store, secrets, message)));
}
