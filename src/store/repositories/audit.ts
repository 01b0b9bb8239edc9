import type { Generated, Selectable } from 'kysely';
import type { Session } from '../session.js';
import type { ActorType, AuditEventRecord, AuditRepository, StoredAuditEvent } from '../store.js';

export interface AuditEventColumns {
  /** The event's position in the log, which listings page by. */
  seq: Generated<number>;
  id: string;
  workspace_id: string | null;
  actor_type: Generated<ActorType>;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  /** JSON text. */
  details: string;
  created_at: string;
}

function toAuditEvent(row: Selectable<AuditEventColumns>): StoredAuditEvent {
  return {
    seq: row.seq,
    id: row.id,
    workspaceId: row.workspace_id,
    actorType: row.actor_type,
    actorId: row.actor_id,
    actorEmail: row.actor_email,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    details: JSON.parse(row.details) as AuditEventRecord['details'],
    createdAt: row.created_at,
  };
}

export class AuditLog implements AuditRepository {
  constructor(private readonly session: Session) {}

  async append(event: AuditEventRecord): Promise<void> {
    await this.session.db
      .insertInto('audit_events')
      .values({
        id: event.id,
        workspace_id: event.workspaceId,
        actor_type: event.actorType,
        actor_id: event.actorId,
        actor_email: event.actorEmail,
        action: event.action,
        target_type: event.targetType,
        target_id: event.targetId,
        details: JSON.stringify(event.details),
        created_at: event.createdAt,
      })
      .execute();
  }

  async list(
    workspaceId: string,
    options: { beforeSeq?: number; limit: number },
  ): Promise<StoredAuditEvent[]> {
    let query = this.session.db
      .selectFrom('audit_events')
      .selectAll()
      .where('workspace_id', '=', workspaceId);
    if (options.beforeSeq !== undefined) query = query.where('seq', '<', options.beforeSeq);
    const rows = await query.orderBy('seq', 'desc').limit(options.limit).execute();
    return rows.map(toAuditEvent);
  }
}
