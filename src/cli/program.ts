import { Command, CommanderError } from 'commander';
import { brandCommand } from './commands/brand.js';
import { emailSendersCommand, emailSuppressionsCommand, mailboxCommand } from './commands/email.js';
import { KEY_KIND_LIST } from '../core/key-kinds.js';
import { keysCommand } from './commands/keys.js';
import { mcpCommand } from './commands/mcp.js';
import { seedCommand } from './commands/seed.js';
import { serveCommand } from './commands/serve.js';
import { usersCommand } from './commands/users.js';
import { webhooksCommand } from './commands/webhooks.js';
import { workspaceCommand } from './commands/workspace.js';
import { formatError, UsageError } from './output.js';

export function buildProgram(): Command {
  const program = new Command('brand-context')
    .description(
      'Brand Context: serve and manage workspace brand data, keys and the MCP server for AI clients',
    )
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride(); // subcommands inherit it
  for (const register of [
    serveCommand,
    seedCommand,
    workspaceCommand,
    usersCommand,
    brandCommand,
    ...KEY_KIND_LIST.map(keysCommand),
    emailSendersCommand,
    emailSuppressionsCommand,
    mailboxCommand,
    webhooksCommand,
    mcpCommand,
  ])
    register(program);
  return program;
}

/** Runs the CLI and returns the exit code: 0 on success, 2 for usage errors, 1 for everything else. */
export async function run(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  try {
    await buildProgram().parseAsync(argv);
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    process.stderr.write(`${formatError(error, json)}\n`);
    if (error instanceof UsageError) return 2;
    return 1;
  }
}
