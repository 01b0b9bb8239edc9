import type { Selectable } from 'kysely';
import type { DisabledReason } from '../../contract/webhooks.js';
import type { Session } from '../session.js';
import type { WebhookRecord, WebhooksRepository, WebhookUpdate } from '../store.js';

export interface WebhookColumns {
  id: string;
  workspace_id: string;
  url: string;
  /** JSON text: an array of event types. */
  events: string;
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  disabled_at: string | null;
  disabled_reason: DisabledReason | null;
  failing_since: string | null;
  /** Null: made by the operator, before creators were recorded, or by an account since deleted. */
  created_by: string | null;
  created_at: string;
  updated_at: string;
}

function toWebhook(row: Selectable<WebhookColumns>): WebhookRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    disabledAt: row.disabled_at,
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since,
    createdBy: row.created_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The columns of the fields an update names: a field left out is not set. */
function toColumns(update: WebhookUpdate): Partial<WebhookColumns> {
  const columns: Partial<WebhookColumns> = { updated_at: update.updatedAt };
  if (update.url !== undefined) columns.url = update.url;
  if (update.events !== undefined) columns.events = JSON.stringify(update.events);
  if (update.description !== undefined) columns.description = update.description;
  if (update.secret !== undefined) columns.secret = update.secret;
  if (update.previousSecret !== undefined) columns.previous_secret = update.previousSecret;
  if (update.previousSecretExpiresAt !== undefined)
    columns.previous_secret_expires_at = update.previousSecretExpiresAt;
  if (update.disabledAt !== undefined) columns.disabled_at = update.disabledAt;
  if (update.disabledReason !== undefined) columns.disabled_reason = update.disabledReason;
  if (update.failingSince !== undefined) columns.failing_since = update.failingSince;
  return columns;
}

export class WebhooksTable implements WebhooksRepository {
  constructor(private readonly session: Session) {}

  async create(webhook: WebhookRecord): Promise<void> {
    await this.session.db
      .insertInto('webhooks')
      .values({
        id: webhook.id,
        workspace_id: webhook.workspaceId,
        url: webhook.url,
        events: JSON.stringify(webhook.events),
        description: webhook.description,
        secret: webhook.secret,
        previous_secret: webhook.previousSecret,
        previous_secret_expires_at: webhook.previousSecretExpiresAt,
        disabled_at: webhook.disabledAt,
        disabled_reason: webhook.disabledReason,
        failing_since: webhook.failingSince,
        created_by: webhook.createdBy,
        created_at: webhook.createdAt,
        updated_at: webhook.updatedAt,
      })
      .execute();
  }

  async get(workspaceId: string, id: string): Promise<WebhookRecord | undefined> {
    const row = await this.session.db
      .selectFrom('webhooks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  async list(workspaceId: string): Promise<WebhookRecord[]> {
    const rows = await this.session.db
      .selectFrom('webhooks')
      .selectAll()
      .where('workspace_id', '=', workspaceId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toWebhook);
  }

  async update(workspaceId: string, id: string, update: WebhookUpdate): Promise<WebhookRecord | undefined> {
    const row = await this.session.db
      .updateTable('webhooks')
      .set(toColumns(update))
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toWebhook(row);
  }

  async countLocked(workspaceId: string): Promise<number> {
    // SQLite runs one write transaction at a time already; PostgreSQL locks the workspace's row until the
    // transaction ends (NO KEY UPDATE: inserts that reference the workspace go on meanwhile).
    if (this.session.backend.kind === 'postgres') {
      await this.session.db
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', workspaceId)
        .forNoKeyUpdate()
        .execute();
    }
    const row = await this.session.db
      .selectFrom('webhooks')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('workspace_id', '=', workspaceId)
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async delete(workspaceId: string, id: string): Promise<WebhookRecord | undefined> {
    // Its deliveries and their attempts go with it (on delete cascade).
    const row = await this.session.db
      .deleteFrom('webhooks')
      .where('workspace_id', '=', workspaceId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst();
    return row && toWebhook(row);
  }
}
