import type { Command } from 'commander';
import { findOrCreateUser, setPassword } from '../../services/accounts/workspaces.js';
import { withDeps } from '../deps.js';
import { createOutput, readStdin, UsageError } from '../output.js';

/** The password comes on stdin, never as an argument: arguments show up in `ps` and shell history. */
async function passwordFromStdin(): Promise<string> {
  const password = (await readStdin()).replace(/\r?\n$/, '');
  if (password === '')
    throw new UsageError('pipe the password on standard input, e.g. printf %s "$PASSWORD" | …');
  return password;
}

export function usersCommand(program: Command): void {
  const users = program.command('users').description('create accounts and set their passwords');

  users
    .command('create')
    .description('create an account (sign-in needs a password: --password-stdin)')
    .requiredOption('--email <email>', 'the account email')
    .option('--password-stdin', 'read the password from standard input')
    .option('--json', 'machine-readable output')
    .action(async (options: { email: string; passwordStdin?: boolean; json?: boolean }) => {
      const password = options.passwordStdin ? await passwordFromStdin() : undefined;
      const user = await withDeps((deps) => findOrCreateUser(deps, options.email, password), {
        create: true,
      });
      createOutput(options.json === true).result(
        {
          id: user.id,
          email: user.email,
          created_at: user.createdAt,
          has_password: user.passwordHash !== null,
        },
        () => `Account ${user.email} (${user.id}).`,
      );
    });

  users
    .command('set-password')
    .description('set or replace the password of an account (read from standard input)')
    .requiredOption('--email <email>', 'the account email')
    .option('--json', 'machine-readable output')
    .action(async (options: { email: string; json?: boolean }) => {
      const password = await passwordFromStdin();
      const user = await withDeps((deps) => setPassword(deps, options.email, password));
      createOutput(options.json === true).result(
        { id: user.id, email: user.email },
        () => `Password set for ${user.email}.`,
      );
    });
}
