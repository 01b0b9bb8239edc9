import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import type { CapturedEmail, EmailSender } from '../../contract/email.js';
import { OPERATOR } from '../../services/audit/audit.js';
import {
  addSender,
  listSenders,
  listSuppressions,
  removeSender,
  removeSuppression,
} from '../../services/email/settings.js';
import { MAILBOX_LIMITS, readMailbox } from '../../services/email/mailbox.js';
import { SecretBox } from '../../services/shared/secret-box.js';
import { withDeps } from '../deps.js';
import { createOutput, table } from '../output.js';

/** A sender as sentences name it: "news@example.com (this address)". */
function senderLine(sender: EmailSender): string {
  return `${sender.sender} (${sender.kind === 'domain' ? 'every address at the domain' : 'this address'})`;
}

/** `brand-context email-senders …`: the addresses and domains a workspace may send from. */
export function emailSendersCommand(program: Command): void {
  const senders = program
    .command('email-senders')
    .description(
      'add, list and remove the senders a workspace may use (docs/email.md "Transactional email")',
    );

  senders
    .command('add')
    .description('allow the workspace to send from an address, or from every address at a domain')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<sender>', 'an address (news@example.com) or a domain (example.com)')
    .option('--json', 'machine-readable output')
    .action(async (text: string, options: { workspace: string; json?: boolean }) => {
      const { sender, added } = await withDeps((deps) => addSender(deps, OPERATOR, options.workspace, text));
      createOutput(options.json === true).result({ ...sender, added }, () =>
        added
          ? `Workspace ${options.workspace} may now send from ${senderLine(sender)}.`
          : `Workspace ${options.workspace} could already send from ${senderLine(sender)}.`,
      );
    });

  senders
    .command('list')
    .description('list the allowed senders of a workspace')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (options: { workspace: string; json?: boolean }) => {
      const list = await withDeps((deps) => listSenders(deps, options.workspace));
      createOutput(options.json === true).result(list, () =>
        list.length === 0
          ? `Workspace ${options.workspace} has no allowed senders: it cannot send until one is added (brand-context email-senders add).`
          : table(
              ['SENDER', 'KIND', 'ADDED'],
              list.map((sender) => [sender.sender, sender.kind, sender.created_at]),
            ),
      );
    });

  senders
    .command('remove')
    .description('stop the workspace sending from an address or domain')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<sender>', 'the address or domain, as email-senders list shows it')
    .option('--json', 'machine-readable output')
    .action(async (text: string, options: { workspace: string; json?: boolean }) => {
      const sender = await withDeps((deps) => removeSender(deps, OPERATOR, options.workspace, text));
      createOutput(options.json === true).result(
        { sender, removed: true },
        () => `Workspace ${options.workspace} can no longer send from ${sender}.`,
      );
    });
}

/** `brand-context email-suppressions …`: the addresses a workspace no longer sends to, since they bounced. */
export function emailSuppressionsCommand(program: Command): void {
  const suppressions = program
    .command('email-suppressions')
    .description('list and remove the addresses a workspace no longer sends to (they bounced)');

  suppressions
    .command('list')
    .description('list the suppressed addresses of a workspace, newest first')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (options: { workspace: string; json?: boolean }) => {
      const list = await withDeps((deps) => listSuppressions(deps, options.workspace));
      createOutput(options.json === true).result(list, () =>
        list.length === 0
          ? `Workspace ${options.workspace} has no suppressed addresses.`
          : table(
              ['EMAIL', 'SINCE', 'RELAY ANSWER'],
              list.map((suppression) => [
                suppression.email,
                suppression.created_at,
                suppression.detail ?? '',
              ]),
            ),
      );
    });

  suppressions
    .command('remove')
    .description('send to a suppressed address again (if it still bounces, it is suppressed again)')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<email>', 'the suppressed address')
    .option('--json', 'machine-readable output')
    .action(async (text: string, options: { workspace: string; json?: boolean }) => {
      const email = await withDeps((deps) => removeSuppression(deps, OPERATOR, options.workspace, text));
      createOutput(options.json === true).result(
        { email, removed: true },
        () => `Workspace ${options.workspace} sends to ${email} again.`,
      );
    });
}

/**
 * One captured message as the terminal shows it: its headers as sent (Bcc, which no header carries, as the
 * bare addresses), then its text (its HTML if it has none).
 */
function messageText(message: CapturedEmail): string {
  const bcc = message.recipients.filter((recipient) => recipient.field === 'bcc');
  const header = (name: string, values: string[]) =>
    values.length === 0 ? [] : [`${name}: ${values.join(', ')}`];
  return [
    `── ${message.id} · ${message.created_at} · ${message.workspace_id === null ? 'no workspace' : `workspace ${message.workspace_id}`}`,
    `From: ${message.from}`,
    ...header('To', message.to),
    ...header('Cc', message.cc),
    ...header(
      'Bcc',
      bcc.map((recipient) => recipient.email),
    ),
    `Subject: ${message.subject}`,
    '',
    message.text ?? message.html ?? '',
  ].join('\n');
}

/**
 * `brand-context mailbox`: what the delivery worker captured while no SMTP_URL was set, across the whole
 * installation, bodies included: how a developer reads an invite or a password reset link under `npm start`.
 */
export function mailboxCommand(program: Command): void {
  program
    .command('mailbox')
    .description('read the email captured while no SMTP_URL is set (newest first, with bodies)')
    .option('--to <address>', 'only messages to this address')
    .option(
      '--limit <n>',
      `how many messages (1 to ${String(MAILBOX_LIMITS.max)}; default ${String(MAILBOX_LIMITS.default)})`,
      (n) => Number(n),
    )
    .option('--json', 'machine-readable output')
    .action(async (options: { to?: string; limit?: number; json?: boolean }) => {
      const { delivery } = loadConfig();
      const messages = await withDeps(async (deps) =>
        readMailbox(deps, await SecretBox.load(deps.store, delivery.encryptionKey), options),
      );
      createOutput(options.json === true).result(messages, () =>
        messages.length === 0
          ? `No captured email${options.to === undefined ? '' : ` to ${options.to}`}.`
          : messages.map(messageText).join('\n\n'),
      );
    });
}
