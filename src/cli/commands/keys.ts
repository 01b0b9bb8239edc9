import type { Command } from 'commander';
import type { CredentialCreator } from '../../contract/credential-creator.js';
import type { CreatedKey, KeyView } from '../../contract/keys.js';
import { OPERATOR } from '../../services/audit/audit.js';
import { withCreators } from '../../services/accounts/creators.js';
import type { KeyKind } from '../../core/key-kinds.js';
import { KEY_SERVICES, MAX_KEY_DAYS } from '../../services/keys/keys.js';
import { withDeps } from '../deps.js';
import { createOutput, table } from '../output.js';

/** A key as the list shows it: `bk_… (name, brk_AbCd…wXyZ)`. */
function keyName(key: KeyView): string {
  return `${key.id} (${key.name}, ${key.prefix}…${key.last4})`;
}

function keyLine(key: KeyView): string {
  return `${keyName(key)} is ${key.status}`;
}

/** When a new key stops working, as a clause: "expires 2026-…" or "lives until it is revoked". */
function lifeOf(created: CreatedKey): string {
  return created.expires_at === null ? 'lives until it is revoked' : `expires ${created.expires_at}`;
}

function shownOnce(created: CreatedKey): string {
  return `This key is shown only once: store it in a server-side secret now. It ${lifeOf(created)}.`;
}

/** `--expires-in-days`, for the kinds of key without a lifetime of their own. */
function expiresInDaysOption(command: Command, what: string, byDefault: string): void {
  command.option(
    '--expires-in-days <days>',
    `expire ${what} after this many days (1 to ${String(MAX_KEY_DAYS)}; default: ${byDefault})`,
    (days) => Number(days),
  );
}

/** The four commands that manage one kind of key (`brand-context keys …`, `api-keys …`, `email-keys …`). */
export function keysCommand(kind: KeyKind) {
  const service = KEY_SERVICES[kind.id];
  const idHint = `${kind.idPrefix}_…`;
  return (program: Command): void => {
    const keys = program.command(kind.command).description(`create, list, revoke and rotate ${kind.label}s`);

    const create = keys
      .command('create')
      .description(`create a ${kind.label} (printed once)`)
      .requiredOption('--workspace <id>', 'workspace id')
      .requiredOption('--name <name>', 'a descriptive name, e.g. "newsletter pipeline"');
    // A kind without a lifetime of its own lives until revoked, unless the operator asks for an expiry.
    if (kind.lifetimeDays === null) expiresInDaysOption(create, 'the key', 'never');
    create
      .option('--json', 'machine-readable output')
      .action(
        async (options: { workspace: string; name: string; expiresInDays?: number; json?: boolean }) => {
          const created = await withDeps((deps) =>
            service.create(deps, OPERATOR, {
              workspaceId: options.workspace,
              name: options.name,
              expiresInDays: options.expiresInDays,
            }),
          );
          createOutput(options.json === true).result(created, () =>
            [
              `Created ${kind.label} ${created.id} (${created.name}), which ${lifeOf(created)}:`,
              '',
              `  ${created.key}`,
              '',
              shownOnce(created),
            ].join('\n'),
          );
          if (options.json) process.stderr.write(`warning: ${shownOnce(created)}\n`);
        },
      );

    keys
      .command('list')
      .description(`list ${kind.label}s (never the secret)`)
      .requiredOption('--workspace <id>', 'workspace id')
      .option('--json', 'machine-readable output')
      .action(async (options: { workspace: string; json?: boolean }) => {
        // Each with its creator, as the API lists them, marked when they are no longer a member.
        const list = await withDeps(async (deps) =>
          withCreators(deps, options.workspace, await service.list(deps, options.workspace)),
        );
        createOutput(options.json === true).result(list, () =>
          list.length === 0
            ? `Workspace ${options.workspace} has no ${kind.label}s.`
            : table(
                ['ID', 'NAME', 'KEY', 'STATUS', 'CREATED', 'EXPIRES', 'LAST USED', 'CREATED BY'],
                list.map((k) => [
                  k.id,
                  k.name,
                  `${k.prefix}…${k.last4}`,
                  k.status,
                  k.created_at,
                  k.expires_at ?? 'never',
                  k.last_used_at ?? 'never',
                  creatorLabel(k.creator),
                ]),
              ),
        );
      });

    keys
      .command('revoke')
      .description(`revoke a ${kind.label} at once, everywhere (revoking twice is harmless)`)
      .requiredOption('--workspace <id>', 'workspace id')
      .argument('<key_id>', `the key id (${idHint}), from ${kind.command} list`)
      .option('--json', 'machine-readable output')
      .action(async (keyId: string, options: { workspace: string; json?: boolean }) => {
        const revoked = await withDeps((deps) => service.revoke(deps, OPERATOR, options.workspace, keyId));
        createOutput(options.json === true).result(revoked, () => `Revoked: ${keyLine(revoked)}.`);
      });

    const rotate = keys
      .command('rotate')
      .description('create a replacement for a key and print the remaining rotation steps')
      .requiredOption('--workspace <id>', 'workspace id')
      .argument('<key_id>', `the key being replaced (${idHint}), from ${kind.command} list`)
      .option('--name <name>', 'name of the replacement (default: the old name + " (rotated)")');
    if (kind.lifetimeDays === null) {
      expiresInDaysOption(rotate, 'the replacement', 'as many as the old key lived, or never');
    }
    rotate
      .option('--json', 'machine-readable output')
      .action(
        async (
          keyId: string,
          options: { workspace: string; name?: string; expiresInDays?: number; json?: boolean },
        ) => {
          const { replaced, created } = await withDeps((deps) =>
            service.rotate(deps, OPERATOR, {
              workspaceId: options.workspace,
              keyId,
              name: options.name,
              expiresInDays: options.expiresInDays,
            }),
          );
          const steps = [
            `Update the environment variable that holds the key (e.g. ${kind.envVar}) in every environment that uses it.`,
            `Verify the new key with a test request (${kind.testRequest} returns 200).`,
            `Revoke the old key: brand-context ${kind.command} revoke --workspace ${options.workspace} ${keyId}`,
          ];
          createOutput(options.json === true).result(
            { replaced_key_id: keyId, ...created, next_steps: steps },
            () =>
              [
                `Step 1 done: created ${created.id} (${created.name}) to replace ${keyName(replaced)}, ${
                  replaced.status === 'active'
                    ? 'which keeps working until step 4 revokes it'
                    : `which is already ${replaced.status}`
                }. The new key:`,
                '',
                `  ${created.key}`,
                '',
                shownOnce(created),
                '',
                ...steps.map((step, i) => `Step ${String(i + 2)}: ${step}`),
              ].join('\n'),
          );
          if (options.json) process.stderr.write(`warning: ${shownOnce(created)}\n`);
        },
      );
  };
}

/** Who made a listed key: the operator (no account), an email, marked once they have left the workspace. */
function creatorLabel(creator: CredentialCreator | null): string {
  if (creator === null) return 'operator';
  const who = creator.email ?? creator.user_id;
  return creator.former_member ? `${who} (former member)` : who;
}
