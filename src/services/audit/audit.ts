import type { AuditEvent, AuditPage } from '../../contract/audit.js';
import { newId } from '../../core/base62.js';
import type { AuditEventRecord, Repositories, StoredAuditEvent } from '../../store/store.js';
import { decodeCursor, encodeCursor } from '../shared/cursors.js';
import type { Deps } from '../shared/deps.js';

/** Who did something: a signed-in user, a workspace API key, the operator at the server's CLI, or the service. */
export type Actor =
  | { kind: 'user'; userId: string; email: string }
  | { kind: 'api_key'; keyId: string }
  | { kind: 'operator' }
  | { kind: 'system' };

export const OPERATOR: Actor = { kind: 'operator' };
export const SYSTEM: Actor = { kind: 'system' };

export interface AuditEntry {
  workspaceId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  /** Names, roles, prefixes: never a secret. */
  details?: AuditEventRecord['details'];
}

/** Appends to the audit log; call it inside the transaction of the change it records. */
export function recordAudit(
  store: Pick<Repositories, 'audit'>,
  actor: Actor,
  at: string,
  entry: AuditEntry,
): Promise<void> {
  return store.audit.append({
    id: newId('ae'),
    workspaceId: entry.workspaceId,
    actorType: actor.kind,
    actorId: actor.kind === 'user' ? actor.userId : actor.kind === 'api_key' ? actor.keyId : null,
    actorEmail: actor.kind === 'user' ? actor.email : null,
    action: entry.action,
    targetType: entry.targetType,
    targetId: entry.targetId,
    details: entry.details ?? {},
    createdAt: at,
  });
}

function actorView(event: StoredAuditEvent): AuditEvent['actor'] {
  switch (event.actorType) {
    case 'user':
      return { type: 'user', id: event.actorId, email: event.actorEmail };
    case 'api_key':
      return { type: 'api_key', id: event.actorId };
    case 'operator':
      return { type: 'operator' };
    case 'system':
      return { type: 'system' };
  }
}

export function toAuditEventView(event: StoredAuditEvent): AuditEvent {
  return {
    id: event.id,
    action: event.action,
    actor: actorView(event),
    target: { type: event.targetType, id: event.targetId },
    details: event.details,
    created_at: event.createdAt,
  };
}

/** An audit cursor is the `seq` of the last event of the previous page. */
function readSeq(decoded: unknown): number | undefined {
  return Number.isSafeInteger(decoded) && (decoded as number) >= 1 ? (decoded as number) : undefined;
}

/** One page of a workspace's audit log, newest first. */
export async function listAuditLog(
  deps: Deps<'audit'>,
  workspaceId: string,
  page: { limit: number; cursor?: string | undefined },
): Promise<AuditPage> {
  const beforeSeq = page.cursor === undefined ? undefined : decodeCursor(page.cursor, readSeq);
  const events = await deps.store.audit.list(workspaceId, { beforeSeq, limit: page.limit });
  const last = events.at(-1);
  return {
    events: events.map(toAuditEventView),
    next_cursor: events.length === page.limit && last ? encodeCursor(last.seq) : null,
  };
}
