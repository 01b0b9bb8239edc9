import type { Command } from 'commander';
import {
  createWorkspace,
  findOrCreateUser,
  listWorkspaces,
  toWorkspaceView,
} from '../../services/workspaces.js';
import { withDeps } from '../deps.js';
import { createOutput, table } from '../output.js';
import { OPERATOR } from '../../services/audit.js';

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
          return { ...toWorkspaceView(record), owner_email: owner?.email ?? null };
        },
        { create: true },
      );
      createOutput(options.json === true).result(
        created,
        () => `Created workspace ${created.id} (${created.name}).`,
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
