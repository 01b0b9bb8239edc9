import type { Command } from 'commander';
import { loadConfig } from '../../config.js';
import { ALL_EVENTS, newWebhookSchema, type Webhook } from '../../contract/webhooks.js';
import { AppError } from '../../core/errors.js';
import { parseInput } from '../../core/inputs.js';
import { OPERATOR } from '../../services/audit/audit.js';
import type { Deps } from '../../services/shared/deps.js';
import { SecretBox } from '../../services/shared/secret-box.js';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhooks,
  type WebhookComponents,
} from '../../services/webhooks/webhooks.js';
import { requireWorkspace } from '../../services/accounts/workspaces.js';
import { withDeps } from '../deps.js';
import { createOutput, table } from '../output.js';

/** `deps` with this node's settings, so the CLI applies the API's address rules, endpoint limit and sealing key. */
async function withWebhookComponents(deps: Deps): Promise<Deps & WebhookComponents> {
  const { delivery } = loadConfig();
  return {
    ...deps,
    secrets: await SecretBox.load(deps.store, delivery.encryptionKey),
    webhookSettings: { allowPrivate: delivery.allowPrivateUrls, endpointLimit: delivery.endpointLimit },
  };
}

/** The table's word for an endpoint's state; `disabled (failing)` when the service disabled it. */
function state(webhook: Webhook): string {
  if (webhook.enabled) return 'enabled';
  return webhook.disabled_reason === 'failing' ? 'disabled (failing)' : 'disabled';
}

/** The problem's own resolution points at the HTTP API; here the listing is a command away. */
function withCliAdvice(error: unknown, workspaceId: string, webhookId: string): unknown {
  if (!(error instanceof AppError) || error.code !== 'webhook_not_found') return error;
  return new AppError(
    'webhook_not_found',
    { workspaceId, webhookId },
    { advice: 'List the endpoints to find its id (brand-context webhooks list --workspace <id>).' },
  );
}

export function webhooksCommand(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('create, list and delete webhook endpoints (docs/webhooks.md)');

  webhooks
    .command('create')
    .description('create an endpoint and print its signing secret')
    .requiredOption('--workspace <id>', 'workspace id')
    .requiredOption('--url <url>', 'where events are POSTed: https:// with a public address')
    .option('--events <types>', `comma-separated event types, or ${ALL_EVENTS} for every event`, ALL_EVENTS)
    .option('--description <text>', 'what the endpoint is for')
    .option('--json', 'machine-readable output')
    .action(
      async (options: {
        workspace: string;
        url: string;
        events: string;
        description?: string;
        json?: boolean;
      }) => {
        // The API's body schema, so both refuse the same URLs and event names with the same words.
        const input = parseInput(
          newWebhookSchema,
          {
            url: options.url,
            events: options.events.split(',').map((event) => event.trim()),
            ...(options.description !== undefined && { description: options.description }),
          },
          '',
          'Invalid webhook endpoint',
        );
        const created = await withDeps(async (deps) =>
          createWebhook(await withWebhookComponents(deps), OPERATOR, options.workspace, input),
        );
        createOutput(options.json === true).result(created, () =>
          [
            `Created webhook endpoint ${created.id} for ${created.url} (events: ${created.events.join(', ')}).`,
            'Its signing secret (Standard Webhooks):',
            '',
            `  ${created.secret}`,
            '',
            'Store it where your receiver verifies signatures. No command prints it again; the API does (GET …/webhooks/{webhook_id}/secret).',
          ].join('\n'),
        );
      },
    );

  webhooks
    .command('list')
    .description('list endpoints (never their secrets)')
    .requiredOption('--workspace <id>', 'workspace id')
    .option('--json', 'machine-readable output')
    .action(async (options: { workspace: string; json?: boolean }) => {
      const list = await withDeps(async (deps) => {
        await requireWorkspace(deps, options.workspace);
        return listWebhooks(deps, options.workspace);
      });
      createOutput(options.json === true).result(list, () =>
        list.length === 0
          ? `Workspace ${options.workspace} has no webhook endpoints.`
          : table(
              ['ID', 'URL', 'EVENTS', 'STATE', 'CREATED'],
              list.map((w) => [w.id, w.url, w.events.join(','), state(w), w.created_at]),
            ),
      );
    });

  webhooks
    .command('delete')
    .description('delete an endpoint and its delivery log')
    .requiredOption('--workspace <id>', 'workspace id')
    .argument('<webhook_id>', 'the endpoint id (wh_…), from webhooks list')
    .option('--json', 'machine-readable output')
    .action(async (webhookId: string, options: { workspace: string; json?: boolean }) => {
      const deleted = await withDeps(async (deps) => {
        await requireWorkspace(deps, options.workspace);
        try {
          const webhook = await getWebhook(deps, options.workspace, webhookId);
          await deleteWebhook(deps, OPERATOR, options.workspace, webhookId);
          return webhook;
        } catch (error) {
          throw withCliAdvice(error, options.workspace, webhookId);
        }
      });
      createOutput(options.json === true).result(
        { id: deleted.id, workspace_id: deleted.workspace_id, url: deleted.url, deleted: true },
        () => `Deleted webhook endpoint ${deleted.id} (${deleted.url}).`,
      );
    });
}
