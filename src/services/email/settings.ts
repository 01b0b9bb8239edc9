import { z } from 'zod';
import { EMAIL_LIMITS, type EmailSender, type EmailSuppression, parseAddress } from '../../contract/email.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { parseInput } from '../../core/inputs.js';
import type { EmailSenderRecord, EmailSuppressionRecord } from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { requireWorkspace } from '../accounts/workspaces.js';

/*
 * What the operator sets up for a workspace's transactional email (docs/email.md "Transactional email"): the
 * addresses and domains it may send from, and the suppressed addresses it may send to again. The
 * workspace reads both in Settings → Email; it removes suppressions itself.
 */

/** Labels of letters, digits and inner hyphens; at least two, the last starting with a letter. */
const DOMAIN = /^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** An address (`news@example.com`) or a domain (`example.com`), lower case: what a message's `from` matches. */
const senderSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(EMAIL_LIMITS.address)
  .refine((sender) => {
    if (!sender.includes('@')) return DOMAIN.test(sender);
    const parsed = parseAddress(sender);
    return typeof parsed !== 'string' && parsed.address === sender;
  }, 'must be an email address (news@example.com) or a domain (example.com)');

/** Suppressed addresses are stored lower case, as recipients are queued. */
const suppressedEmailSchema = z.string().trim().toLowerCase().max(EMAIL_LIMITS.address);

function senderKind(sender: string): EmailSender['kind'] {
  return sender.includes('@') ? 'address' : 'domain';
}

function toSenderView(record: EmailSenderRecord): EmailSender {
  return { sender: record.sender, kind: senderKind(record.sender), created_at: record.createdAt };
}

function toSuppressionView(record: EmailSuppressionRecord): EmailSuppression {
  return {
    email: record.email,
    reason: record.reason,
    detail: record.detail,
    message_id: record.messageId,
    created_at: record.createdAt,
  };
}

/** The workspace's allowed senders, in alphabetical order. */
export async function listSenders(
  deps: Deps<'email' | 'workspaces'>,
  workspaceId: string,
): Promise<EmailSender[]> {
  await requireWorkspace(deps, workspaceId);
  return (await deps.store.email.listSenders(workspaceId)).map(toSenderView);
}

/**
 * Allows the workspace to send from an address or a whole domain. Adding one it already has is no error
 * and changes nothing: `added` says which it was, and the sender is the one first added.
 */
export async function addSender(
  deps: Deps<'email' | 'workspaces' | 'audit'>,
  actor: Actor,
  workspaceId: string,
  text: string,
): Promise<{ sender: EmailSender; added: boolean }> {
  const sender = parseInput(senderSchema, text, 'sender', 'Invalid sender');
  await requireWorkspace(deps, workspaceId);
  const now = isoAt(deps.clock);
  const record: EmailSenderRecord = { workspaceId, sender, createdAt: now };
  return deps.store.transaction(async (tx) => {
    if (!(await tx.email.addSender(record))) {
      const existing = (await tx.email.listSenders(workspaceId)).find((listed) => listed.sender === sender);
      return { sender: toSenderView(existing ?? record), added: false };
    }
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'email_sender.added',
      targetType: 'email_sender',
      targetId: sender,
      details: { kind: senderKind(sender) },
    });
    return { sender: toSenderView(record), added: true };
  });
}

/**
 * Stops the workspace sending from the sender; 404 `email_sender_not_found` when it had no such sender.
 * Returns the sender as stored (lower case).
 */
export async function removeSender(
  deps: Deps<'email' | 'workspaces' | 'audit'>,
  actor: Actor,
  workspaceId: string,
  text: string,
): Promise<string> {
  const sender = parseInput(senderSchema, text, 'sender', 'Invalid sender');
  await requireWorkspace(deps, workspaceId);
  const now = isoAt(deps.clock);
  await deps.store.transaction(async (tx) => {
    if (!(await tx.email.removeSender(workspaceId, sender)))
      throw new AppError('email_sender_not_found', { sender });
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'email_sender.removed',
      targetType: 'email_sender',
      targetId: sender,
    });
  });
  return sender;
}

/** The addresses the workspace no longer sends to (they bounced), newest first. */
export async function listSuppressions(
  deps: Deps<'email' | 'workspaces'>,
  workspaceId: string,
): Promise<EmailSuppression[]> {
  await requireWorkspace(deps, workspaceId);
  return (await deps.store.email.listSuppressions(workspaceId)).map(toSuppressionView);
}

/**
 * Lets the workspace send to a suppressed address again (its mailbox is fixed, say); 404
 * `suppression_not_found` when the address is not suppressed. Returns the address as stored (lower case).
 */
export async function removeSuppression(
  deps: Deps<'email' | 'workspaces' | 'audit'>,
  actor: Actor,
  workspaceId: string,
  text: string,
): Promise<string> {
  const email = parseInput(suppressedEmailSchema, text, 'email', 'Invalid address');
  await requireWorkspace(deps, workspaceId);
  const now = isoAt(deps.clock);
  await deps.store.transaction(async (tx) => {
    if (!(await tx.email.removeSuppression(workspaceId, email)))
      throw new AppError('suppression_not_found', { email });
    await recordAudit(tx, actor, now, {
      workspaceId,
      action: 'email_suppression.removed',
      targetType: 'email_suppression',
      targetId: email,
    });
  });
  return email;
}
