import type { OAuthGrant } from '../../contract/oauth-consent.js';
import { isoAt } from '../../core/clock.js';
import { AppError } from '../../core/errors.js';
import { can } from '../../core/roles.js';
import type {
  ListedOAuthGrant,
  MembershipRecord,
  OAuthGrantRecord,
  Repositories,
} from '../../store/store.js';
import { type Actor, recordAudit } from '../audit/audit.js';
import type { Deps } from '../shared/deps.js';
import { type EventRepositories, publishEvent } from '../webhooks/events.js';

/** Why a grant ended, as its audit event and its `oauth_grant.revoked` webhook event say. */
export type GrantRevocationReason = 'revoked' | 'code_replayed' | 'refresh_token_reused';

/** What revoking a grant writes to: the grant, the audit log, the event outbox; and whose grant it was. */
export type GrantRevocationStore = Pick<Repositories, 'oauth' | 'users' | 'audit' | EventRepositories>;

export function toGrantView(grant: ListedOAuthGrant): OAuthGrant {
  return {
    id: grant.id,
    client_id: grant.clientId,
    client_name: grant.clientName,
    user_id: grant.userId,
    user_email: grant.userEmail,
    scopes: grant.scopes,
    created_at: grant.createdAt,
    last_used_at: grant.lastUsedAt,
  };
}

/** Those who may revoke keys (owners and admins) see and revoke every member's grants; others their own. */
function managesEveryGrant(membership: MembershipRecord): boolean {
  return can(membership.role, 'keys.write');
}

/** The workspace's live grants as Agent Access lists them: every one to owners and admins, a member their own. */
export async function listGrants(deps: Deps<'oauth'>, membership: MembershipRecord): Promise<OAuthGrant[]> {
  const grants = await deps.store.oauth.listGrants(membership.workspaceId);
  const visible = managesEveryGrant(membership)
    ? grants
    : grants.filter((grant) => grant.userId === membership.userId);
  return visible.map(toGrantView);
}

/**
 * Revokes the grant unless it already was, with its audit event and `oauth_grant.revoked`; call it inside the
 * transaction that decided so. Answers whether this call revoked it.
 */
export async function revokeGrantRecord(
  tx: GrantRevocationStore,
  actor: Actor,
  at: string,
  grant: OAuthGrantRecord,
  reason: GrantRevocationReason,
): Promise<boolean> {
  const revoked = await tx.oauth.revokeGrant(grant.id, at);
  if (!revoked) return false;
  const [client, user] = await Promise.all([tx.oauth.getClient(grant.clientId), tx.users.get(grant.userId)]);
  const clientName = client?.name ?? grant.clientId;
  await recordAudit(tx, actor, at, {
    workspaceId: grant.workspaceId,
    action: 'oauth_grant.revoked',
    targetType: 'oauth_grant',
    targetId: grant.id,
    details: { client_id: grant.clientId, client_name: clientName, user_id: grant.userId, reason },
  });
  await publishEvent(tx, at, {
    workspaceId: grant.workspaceId,
    type: 'oauth_grant.revoked',
    data: {
      grant: {
        id: grant.id,
        client_id: grant.clientId,
        client_name: clientName,
        user_id: grant.userId,
        user_email: user?.email ?? '',
        scopes: grant.scopes,
        created_at: grant.createdAt,
      },
      reason,
    },
  });
  return true;
}

/**
 * DELETE /api/v1/workspaces/{id}/oauth-grants/{grant_id}: owners and admins revoke any grant of the
 * workspace, a member their own. Its tokens stop working at once: every use looks the grant up.
 */
export async function revokeGrant(
  deps: Deps<'oauth' | 'users' | 'audit' | EventRepositories>,
  actor: Actor,
  membership: MembershipRecord,
  grantId: string,
): Promise<void> {
  const { workspaceId } = membership;
  const grant = await deps.store.oauth.getGrant(grantId);
  if (!grant || grant.workspaceId !== workspaceId || grant.revokedAt !== null)
    throw new AppError('oauth_grant_not_found', { grantId });
  if (grant.userId !== membership.userId && !managesEveryGrant(membership))
    throw new AppError('insufficient_role', {
      reason: 'permission',
      role: membership.role,
      permission: 'revoking another member’s connected app',
    });
  const at = isoAt(deps.clock);
  await deps.store.transaction((tx) => revokeGrantRecord(tx, actor, at, grant, 'revoked'));
}
