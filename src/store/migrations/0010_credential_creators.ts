import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's documented migration signature
type AnyDatabase = Kysely<any>;

/**
 * Who created each webhook endpoint, as brand read keys and workspace API keys already record: removing a
 * member lists what they created and can disable it, and listings mark what a former member created (docs/management-api.md
 * "Management API", removing a member). Endpoints created before this are attributed from the audit log's
 * `webhook.created` entry when a user made them and their account still exists; the rest stay unattributed.
 */
export async function up(db: AnyDatabase): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('created_by', 'text', (c) => c.references('users.id').onDelete('set null'))
    .execute();
  await sql`
    update webhooks set created_by = (
      select audit_events.actor_id from audit_events
      where audit_events.workspace_id = webhooks.workspace_id
        and audit_events.action = 'webhook.created'
        and audit_events.target_id = webhooks.id
        and audit_events.actor_type = 'user'
        and audit_events.actor_id in (select users.id from users)
      order by audit_events.seq
      limit 1
    )
  `.execute(db);
}
