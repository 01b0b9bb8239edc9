import type { Command } from 'commander';
import {
  createWorkspace,
  findOrCreateUser,
  listWorkspaces,
  toWorkspaceView,
} from '../../services/accounts/workspaces.js';
import { withDeps } from '../deps.js';
import { createOutput, setPasswordCommand, table } from '../output.js';
import { OPERATOR } from '../../services/audit/audit.js';

export function workspaceCommand(program: Command): void {
  const workspace = program.command('workspace').description('create and list workspaces');

  workspace
    .command('create')
    .description('create a workspace with an empty brand')
    .requiredOption('--name <name>', 'workspace (brand) name')
    .option('--owner-email <email>', 'make this account the owner (created if it does not exist)')
    .option('--json', 'machine-readable output')
    .action(async (options: { name: string; ownerEmail?: string; json?: boolean }) => {
      const created = await withDeps(
        async (deps) => {
          const owner =
            options.ownerEmail === undefined ? undefined : await findOrCreateUser(deps, options.ownerEmail);
          const record = await createWorkspace(deps, OPERATOR, { name: options.name, owner });
          return {
            view: { ...toWorkspaceView(record), owner_email: owner?.email ?? null },
            ownerWithoutPassword: owner !== undefined && owner.passwordHash === null,
          };
        },
        { create: true },
      );
      const { view } = created;
      createOutput(options.json === true).result(view, () =>
        [
          `Created workspace ${view.id} (${view.name})${view.owner_email === null ? '' : `, owned by ${view.owner_email}`}.`,
          // The owner cannot sign in yet: the README's first steps go on with this command.
          ...(created.ownerWithoutPassword && view.owner_email !== null
            ? ['Next, give the owner a password to sign in with:', '', setPasswordCommand(view.owner_email)]
            : []),
        ].join('\n'),
      );
    });

  workspace
    .command('list')
    .description('list every workspace in the database')
    .option('--json', 'machine-readable output')
    .action(async (options: { json?: boolean }) => {
      const workspaces = (await withDeps(listWorkspaces)).map(toWorkspaceView);
      createOutput(options.json === true).result(workspaces, () =>
        workspaces.length === 0
          ? 'No workspaces yet. Create one with: brand-context workspace create --name "Acme"'
          : table(
              ['ID', 'NAME', 'CREATED'],
              workspaces.map((w) => [w.id, w.name, w.created_at]),
            ),
      );
    });
}
