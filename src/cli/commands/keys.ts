import type { Command } from 'commander';
import { type KeyView, createBrandKey, listBrandKeys, revokeBrandKey } from '../../services/keys.js';
import { withDeps } from '../deps.js';
import { createOutput, table } from '../output.js';
import { OPERATOR } from '../../services/audit.js';

const SHOWN_ONCE =
  'This key is shown only once: store it in a server-side secret now. It expires in 90 days.';

function keyLine(key: KeyView): string {
  return `${key.id} (${key.name}, ${key.prefix}…${key.last4}) is ${key.status}`;
}

export function keysCommand(program: Command): void {
  const keys = program.command('keys').description('create, list, revoke and rotate brand read keys');

  keys
    .command('create')
    .description('create a brand read key (printed once)')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--name <name>', 'a descriptive name, e.g. "newsletter pipeline"')
    .option('--json', 'machine-readable output')
    .action(async (options: { workspace: string; name: string; json?: boolean }) => {
      const created = await withDeps((deps) =>
        createBrandKey(deps, OPERATOR, { workspaceId: options.workspace, name: options.name }),
      );
      createOutput(options.json === true).result(created, () =>
        [
          `Created brand read key ${created.id} (${created.name}), expires ${created.expires_at}:`,
          '',
          `  ${created.key}`,
          '',
          SHOWN_ONCE,
        ].join('\n'),
      );
      if (options.json) process.stderr.write(`warning: ${SHOWN_ONCE}\n`);
    });

  keys
    .command('list')
    .description('list brand read keys (never the secret)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (options: { workspace: string; json?: boolean }) => {
      const list = await withDeps((deps) => listBrandKeys(deps, options.workspace));
      createOutput(options.json === true).result(list, () =>
        list.length === 0
          ? `Workspace ${options.workspace} has no brand read keys.`
          : table(
              ['ID', 'NAME', 'KEY', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED'],
              list.map((k) => [
                k.id,
                k.name,
                `${k.prefix}…${k.last4}`,
                k.status,
                k.created_at,
                k.expires_at,
                k.last_used_at ?? 'never',
              ]),
            ),
      );
    });

  keys
    .command('revoke')
    .description('revoke a brand read key at once, everywhere (revoking twice is harmless)')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<key_id>', 'the key id (bk_…), from keys list')
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, options: { workspace: string; json?: boolean }) => {
      const revoked = await withDeps((deps) => revokeBrandKey(deps, OPERATOR, options.workspace, keyId));
      createOutput(options.json === true).result(revoked, () => `Revoked: ${keyLine(revoked)}.`);
    });

  keys
    .command('rotate')
    .description('create a replacement for a key and print the remaining rotation steps (spec 5.5)')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<key_id>', 'the key being replaced')
    .option('--name <name>', 'name of the replacement (default: the old name + " (rotated)")')
    .option('--json', 'machine-readable output')
    .action(async (keyId: string, options: { workspace: string; name?: string; json?: boolean }) => {
      const { old, created } = await withDeps(async (deps) => {
        const current = (await listBrandKeys(deps, options.workspace)).find((key) => key.id === keyId);
        const replacement = await createBrandKey(deps, OPERATOR, {
          workspaceId: options.workspace,
          name: options.name ?? `${current?.name ?? keyId} (rotated)`,
        });
        return { old: current, created: replacement };
      });
      const steps = [
        'Update the environment variable that holds the key (e.g. BRAND_READ_KEY) in every environment that uses it.',
        'Verify the new key with a test request (POST /functions/v1/brand-agent returns 200).',
        `Revoke the old key: brand-context keys revoke --workspace ${options.workspace} ${keyId}`,
      ];
      createOutput(options.json === true).result(
        { replaced_key_id: keyId, replaced_key_found: old !== undefined, ...created, next_steps: steps },
        () =>
          [
            `Step 1 done: created ${created.id} (${created.name}) to replace ${old ? keyLine(old) : `${keyId} (not found in this workspace)`}:`,
            '',
            `  ${created.key}`,
            '',
            SHOWN_ONCE,
            '',
            ...steps.map((step, i) => `Step ${i + 2}: ${step}`),
          ].join('\n'),
      );
    });
}
