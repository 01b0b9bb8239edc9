import type { Command } from 'commander';
import { OPERATOR } from '../../services/audit.js';
import {
  createApiKey,
  createBrandKey,
  type KeyView,
  listApiKeys,
  listBrandKeys,
  revokeApiKey,
  revokeBrandKey,
  rotateApiKey,
  rotateBrandKey,
} from '../../services/keys.js';
import { withDeps } from '../deps.js';
import { createOutput, table } from '../output.js';

/** Brand read keys (`keys`) and workspace API keys (`api-keys`) are managed by the same four commands. */
interface KeyCommands {
  command: 'keys' | 'api-keys';
  noun: string;
  idPrefix: string;
  /** Where integrations usually keep this kind of key. */
  envVar: string;
  /** How to check that a replacement works (rotation step 3). */
  verifyStep: string;
  create: typeof createBrandKey;
  list: typeof listBrandKeys;
  revoke: typeof revokeBrandKey;
  rotate: typeof rotateBrandKey;
}

export const BRAND_KEY_COMMANDS: KeyCommands = {
  command: 'keys',
  noun: 'brand read key',
  idPrefix: 'bk_',
  envVar: 'BRAND_READ_KEY',
  verifyStep: 'Verify the new key with a test request (POST /functions/v1/brand-agent returns 200).',
  create: createBrandKey,
  list: listBrandKeys,
  revoke: revokeBrandKey,
  rotate: rotateBrandKey,
};

export const API_KEY_COMMANDS: KeyCommands = {
  command: 'api-keys',
  noun: 'workspace API key',
  idPrefix: 'ak_',
  envVar: 'BRAND_CONTEXT_API_KEY',
  verifyStep: 'Verify the new key with a test request (GET /api/v1/workspaces/<id>/campaigns returns 200).',
  create: createApiKey,
  list: listApiKeys,
  revoke: revokeApiKey,
  rotate: rotateApiKey,
};

function keyLine(key: KeyView): string {
  return `${key.id} (${key.name}, ${key.prefix}…${key.last4}) is ${key.status}`;
}

export function keysCommand(kind: KeyCommands) {
  const shownOnce =
    'This key is shown only once: store it in a server-side secret now. It expires in 90 days.';
  return (program: Command): void => {
    const keys = program.command(kind.command).description(`create, list, revoke and rotate ${kind.noun}s`);

    keys
      .command('create')
      .description(`create a ${kind.noun} (printed once)`)
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--name <name>', 'a descriptive name, e.g. "newsletter pipeline"')
      .option('--json', 'machine-readable output')
      .action(async (options: { workspace: string; name: string; json?: boolean }) => {
        const created = await withDeps((deps) =>
          kind.create(deps, OPERATOR, { workspaceId: options.workspace, name: options.name }),
        );
        createOutput(options.json === true).result(created, () =>
          [
            `Created ${kind.noun} ${created.id} (${created.name}), expires ${created.expires_at}:`,
            '',
            `  ${created.key}`,
            '',
            shownOnce,
          ].join('\n'),
        );
        if (options.json) process.stderr.write(`warning: ${shownOnce}\n`);
      });

    keys
      .command('list')
      .description(`list ${kind.noun}s (never the secret)`)
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--json', 'machine-readable output')
      .action(async (options: { workspace: string; json?: boolean }) => {
        const list = await withDeps((deps) => kind.list(deps, options.workspace));
        createOutput(options.json === true).result(list, () =>
          list.length === 0
            ? `Workspace ${options.workspace} has no ${kind.noun}s.`
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
      .description(`revoke a ${kind.noun} at once, everywhere (revoking twice is harmless)`)
      .requiredOption('--workspace <id>', 'workspace id')
      .argument('<key_id>', `the key id (${kind.idPrefix}…), from ${kind.command} list`)
      .option('--json', 'machine-readable output')
      .action(async (keyId: string, options: { workspace: string; json?: boolean }) => {
        const revoked = await withDeps((deps) => kind.revoke(deps, OPERATOR, options.workspace, keyId));
        createOutput(options.json === true).result(revoked, () => `Revoked: ${keyLine(revoked)}.`);
      });

    keys
      .command('rotate')
      .description('create a replacement for a key and print the remaining rotation steps')
      .requiredOption('--workspace <id>', 'workspace id')
      .argument('<key_id>', `the key being replaced (${kind.idPrefix}…), from ${kind.command} list`)
      .option('--name <name>', 'name of the replacement (default: the old name + " (rotated)")')
      .option('--json', 'machine-readable output')
      .action(async (keyId: string, options: { workspace: string; name?: string; json?: boolean }) => {
        const { replaced, created } = await withDeps((deps) =>
          kind.rotate(deps, OPERATOR, { workspaceId: options.workspace, keyId, name: options.name }),
        );
        const steps = [
          `Update the environment variable that holds the key (e.g. ${kind.envVar}) in every environment that uses it.`,
          kind.verifyStep,
          `Revoke the old key: brand-context ${kind.command} revoke --workspace ${options.workspace} ${keyId}`,
        ];
        createOutput(options.json === true).result(
          { replaced_key_id: keyId, ...created, next_steps: steps },
          () =>
            [
              `Step 1 done: created ${created.id} (${created.name}) to replace ${keyLine(replaced)}:`,
              '',
              `  ${created.key}`,
              '',
              shownOnce,
              '',
              ...steps.map((step, i) => `Step ${String(i + 2)}: ${step}`),
            ].join('\n'),
        );
        if (options.json) process.stderr.write(`warning: ${shownOnce}\n`);
      });
  };
}
